// Elementwise unary math (Relu, Sigmoid, Tanh, Erf, Sqrt, Exp, Log, Abs, Neg,
// Reciprocal, Gelu) and ClipByValue.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

struct ReluOp {
  template <typename T>
  T operator()(T x) const { return x > T(0) ? x : T(0); }
};
struct SigmoidOp {
  template <typename T>
  T operator()(T x) const { return T(1) / (T(1) + std::exp(-x)); }
};
struct TanhOp {
  template <typename T>
  T operator()(T x) const { return std::tanh(x); }
};
struct ErfOp {
  template <typename T>
  T operator()(T x) const { return std::erf(x); }
};
struct SqrtOp {
  template <typename T>
  T operator()(T x) const { return std::sqrt(x); }
};
struct ExpOp {
  template <typename T>
  T operator()(T x) const { return std::exp(x); }
};
struct LogOp {
  template <typename T>
  T operator()(T x) const { return std::log(x); }
};
struct AbsOp {
  template <typename T>
  T operator()(T x) const { return x < T(0) ? T(-x) : x; }
};
struct NegOp {
  template <typename T>
  T operator()(T x) const { return T(-x); }
};
struct ReciprocalOp {
  template <typename T>
  T operator()(T x) const { return T(1) / x; }
};
// The exact (erf) form: x * Phi(x).
struct GeluOp {
  template <typename T>
  T operator()(T x) const { return T(0.5) * x * (T(1) + std::erf(x * T(0.70710678118654752440))); }
};

template <typename T, typename Op>
class UnaryKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t n = ctx.outputs[0].num_elements();
    Op op;
#pragma omp parallel for simd if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) y[i] = op(x[i]);
  }
};

// min(max(x, lo), hi) with lo and hi read from their (scalar) inputs at run time.
template <typename T>
class ClipByValueKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const T lo = *ctx.inputs[1].as<const T>();
    const T hi = *ctx.inputs[2].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t n = ctx.outputs[0].num_elements();
#pragma omp parallel for simd if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) y[i] = std::min(std::max(x[i], lo), hi);
  }
};

template <typename Op, typename Types>
void RegisterUnary(KernelRegistry& registry, const std::string& op_type, Types types) {
  RegisterKernel(registry, op_type, DataTypesOf(types), [](const Node& node) {
    return DispatchDtype(node, InputDtype(node, 0), Types{}, [](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<UnaryKernel<typename decltype(tag)::type, Op>>();
    });
  });
}

std::unique_ptr<Kernel> MakeClipByValue(const Node& node) {
  for (size_t i : {1, 2}) {
    if (InputShape(node, i).NumElements() != 1) {
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("input {} ({}) must hold one value, got shape {}", i,
                       i == 1 ? "clip_value_min" : "clip_value_max", InputShape(node, i).ToString()));
    }
    if (InputDtype(node, i) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidModel, fmt::format("input {} has dtype {}, x has {}", i,
                                                       DataTypeName(InputDtype(node, i)),
                                                       DataTypeName(InputDtype(node, 0))));
    }
  }
  return DispatchDtype(node, InputDtype(node, 0), ArithmeticTypes{}, [](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<ClipByValueKernel<typename decltype(tag)::type>>();
  });
}

}  // namespace

void RegisterUnaryKernels(KernelRegistry& registry) {
  // Sign-only ops also run on the index types; transcendental ones on floats.
  RegisterUnary<ReluOp>(registry, "Relu", ArithmeticTypes{});
  RegisterUnary<AbsOp>(registry, "Abs", ArithmeticTypes{});
  RegisterUnary<NegOp>(registry, "Neg", ArithmeticTypes{});
  RegisterUnary<SigmoidOp>(registry, "Sigmoid", FloatTypes{});
  RegisterUnary<TanhOp>(registry, "Tanh", FloatTypes{});
  RegisterUnary<ErfOp>(registry, "Erf", FloatTypes{});
  RegisterUnary<SqrtOp>(registry, "Sqrt", FloatTypes{});
  RegisterUnary<ExpOp>(registry, "Exp", FloatTypes{});
  RegisterUnary<LogOp>(registry, "Log", FloatTypes{});
  RegisterUnary<ReciprocalOp>(registry, "Reciprocal", FloatTypes{});
  RegisterUnary<GeluOp>(registry, "Gelu", FloatTypes{});
  RegisterKernel(registry, "ClipByValue", DataTypesOf(ArithmeticTypes{}), MakeClipByValue);
}

}  // namespace ge::device::cpu
