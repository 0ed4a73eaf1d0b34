// NonZero: the int64 indices [rank, count] of the non-zero elements of x in
// row-major order. The count is part of the output shape, which the runtime
// infers from x's values; the kernel checks that they agree.
#include <cstring>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename T>
bool IsNonZero(T v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return (v.bits & 0x7FFF) != 0;  // +-0 are zero
  } else {
    return v != T(0);
  }
}

template <typename T>
class NonZeroKernel final : public Kernel {
 public:
  explicit NonZeroKernel(const Node& node)
      : label_(node.Describe()), dims_(InputShape(node, 0).dims()), count_(OutputShape(node, 0).dim(1)) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const int64_t n = Product(dims_);
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += IsNonZero(x[i]) ? 1 : 0;
    if (count != count_) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: x has {} non-zero elements but the output was shaped for {}", label_, count,
                              count_));
    }
    auto* y = ctx.outputs[0].as<int64_t>();
    const size_t rank = dims_.size();
    int64_t column = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!IsNonZero(x[i])) continue;
      int64_t rest = i;
      for (size_t d = rank; d-- > 0;) {
        y[d * count_ + column] = rest % dims_[d];
        rest /= dims_[d];
      }
      ++column;
    }
  }

 private:
  std::string label_;
  std::vector<int64_t> dims_;
  int64_t count_;
};

std::unique_ptr<Kernel> MakeNonZero(const Node& node) {
  const Shape& y = OutputShape(node, 0);
  if (y.rank() != 2 || y.dim(0) != static_cast<int64_t>(InputShape(node, 0).rank()) ||
      node.output(0)->dtype() != DataType::kInt64) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("output {} must be int64 [rank of x, count]", y.ToString()));
  }
  return DispatchDtype(node, InputDtype(node, 0), AllTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<NonZeroKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterNonZeroKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "NonZero", DataTypesOf(AllTypes{}), MakeNonZero);
}

}  // namespace ge::device::cpu
