// Broadcasting binary arithmetic: Add, Sub, Mul, Div, Pow, Maximum, Minimum.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include <fmt/format.h>

#include "device/cpu/kernels/broadcast_layout.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

struct AddOp {
  template <typename T>
  T operator()(T a, T b) const { return a + b; }
};
struct SubOp {
  template <typename T>
  T operator()(T a, T b) const { return a - b; }
};
struct MulOp {
  template <typename T>
  T operator()(T a, T b) const { return a * b; }
};
struct DivOp {
  // Integer division truncates toward zero (C++ rules, as the op set says);
  // zero divisors are rejected before the loop, and INT_MIN / -1 wraps
  // instead of trapping.
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == -1) return static_cast<T>(-static_cast<std::make_unsigned_t<T>>(a));
    }
    return a / b;
  }
};
struct PowOp {
  template <typename T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(a, b);
    } else {
      // Exact integer power by squaring; a negative exponent truncates 1/a^|b|
      // toward zero like the integer division does.
      if (b < 0) return a == 1 ? T(1) : a == -1 ? ((b & 1) ? T(-1) : T(1)) : T(0);
      using U = std::make_unsigned_t<T>;
      U result = 1, base = static_cast<U>(a);
      for (T e = b; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return static_cast<T>(result);
    }
  }
};
struct MaximumOp {
  template <typename T>
  T operator()(T a, T b) const { return std::max(a, b); }
};
struct MinimumOp {
  template <typename T>
  T operator()(T a, T b) const { return std::min(a, b); }
};

// One inner run of `count` outputs; kA/kB: the operand advances (stride 1)
// or stays (broadcast, stride 0). Compile-time strides let the loop vectorize.
template <typename T, typename Op, bool kA, bool kB>
void InnerRun(const T* a, const T* b, T* y, int64_t count) {
  Op op;
  for (int64_t i = 0; i < count; ++i) y[i] = op(a[kA ? i : 0], b[kB ? i : 0]);
}

template <typename T, typename Op>
class BinaryKernel final : public Kernel {
 public:
  BinaryKernel(const Node& node)
      : label_(node.Describe()), layout_(MakeLayout(node)) {}

  void Run(const KernelContext& ctx) const override {
    const T* a = ctx.inputs[0].as<const T>();
    const T* b = ctx.inputs[1].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    if constexpr (std::is_same_v<Op, DivOp> && std::is_integral_v<T>) {
      const int64_t nb = ctx.inputs[1].num_elements();
      if (std::find(b, b + nb, T(0)) != b + nb) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: integer division by zero", label_));
      }
    }
    using RunFn = void (*)(const T*, const T*, T*, int64_t);
    static constexpr RunFn kRuns[2][2] = {{InnerRun<T, Op, false, false>, InnerRun<T, Op, false, true>},
                                          {InnerRun<T, Op, true, false>, InnerRun<T, Op, true, true>}};
    const RunFn run = kRuns[layout_.inner_stride(0)][layout_.inner_stride(1)];

    // Work is split into chunks of at most kChunk outputs so that a
    // same-shape op (one row) still spreads over the threads.
    constexpr int64_t kChunk = 8192;
    const int64_t inner = layout_.inner();
    const int64_t chunks_per_row = std::max<int64_t>(1, (inner + kChunk - 1) / kChunk);
    const int64_t tasks = layout_.rows() * chunks_per_row;
    const int64_t total = layout_.rows() * inner;
#pragma omp parallel for if (total > kParallelGrain)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t row = task / chunks_per_row;
      const int64_t begin = (task % chunks_per_row) * kChunk;
      const int64_t count = std::min(kChunk, inner - begin);
      if (count <= 0) continue;
      const T* a_run = a + layout_.RowOffset(0, row) + begin * layout_.inner_stride(0);
      const T* b_run = b + layout_.RowOffset(1, row) + begin * layout_.inner_stride(1);
      run(a_run, b_run, y + row * inner + begin, count);
    }
  }

 private:
  static BroadcastLayout MakeLayout(const Node& node) {
    const Shape* shapes[] = {&InputShape(node, 0), &InputShape(node, 1)};
    if (InputDtype(node, 1) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("inputs have different dtypes {} and {}", DataTypeName(InputDtype(node, 0)),
                       DataTypeName(InputDtype(node, 1))));
    }
    try {
      return BroadcastLayout(OutputShape(node, 0), shapes);
    } catch (const Error& e) {
      Fail(node, e.code(), e.what());
    }
  }

  std::string label_;
  BroadcastLayout layout_;
};

template <typename Op>
void RegisterBinary(KernelRegistry& registry, const std::string& op_type) {
  RegisterKernel(registry, op_type, DataTypesOf(ArithmeticTypes{}), [](const Node& node) {
    return DispatchDtype(node, InputDtype(node, 0), ArithmeticTypes{},
                         [&](auto tag) -> std::unique_ptr<Kernel> {
                           return std::make_unique<BinaryKernel<typename decltype(tag)::type, Op>>(node);
                         });
  });
}

}  // namespace

void RegisterBinaryKernels(KernelRegistry& registry) {
  RegisterBinary<AddOp>(registry, "Add");
  RegisterBinary<SubOp>(registry, "Sub");
  RegisterBinary<MulOp>(registry, "Mul");
  RegisterBinary<DivOp>(registry, "Div");
  RegisterBinary<PowOp>(registry, "Pow");
  RegisterBinary<MaximumOp>(registry, "Maximum");
  RegisterBinary<MinimumOp>(registry, "Minimum");
}

}  // namespace ge::device::cpu
