// Cumsum (ONNX CumSum): running sums along an axis read at run time;
// exclusive leaves each element out of its own sum, reverse runs from the end.
// float16/bfloat16 sums run in float, each output rounded once.
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/index_utils.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename T>
class CumsumKernel final : public Kernel {
 public:
  explicit CumsumKernel(const Node& node)
      : label_(node.Describe()),
        dims_(InputShape(node, 0).dims()),
        exclusive_(node.attrs().GetBool("exclusive")),
        reverse_(node.attrs().GetBool("reverse")) {}

  void Run(const KernelContext& ctx) const override {
    const int64_t axis = RuntimeAxis(label_, ctx.inputs[1], dims_.size(), "axis");
    const int64_t outer = Product(std::span(dims_).first(axis));
    const int64_t n = dims_[axis];
    const int64_t inner = Product(std::span(dims_).subspan(axis + 1));
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    ParallelFor(outer * inner, outer * n * inner > kParallelGrain, [&](int64_t line) {
      const int64_t base = (line / inner) * n * inner + line % inner;
      Compute<T> sum{};
      for (int64_t step = 0; step < n; ++step) {
        const int64_t at = base + (reverse_ ? n - 1 - step : step) * inner;
        if (exclusive_) {
          y[at] = Store<T>(sum);
          sum = static_cast<Compute<T>>(sum + Load(x[at]));
        } else {
          sum = static_cast<Compute<T>>(sum + Load(x[at]));
          y[at] = Store<T>(sum);
        }
      }
    });
  }

 private:
  std::string label_;
  std::vector<int64_t> dims_;
  bool exclusive_;
  bool reverse_;
};

std::unique_ptr<Kernel> MakeCumsum(const Node& node) {
  if (InputShape(node, 0).rank() == 0) Fail(node, ErrorCode::kInvalidArgument, "x must have rank >= 1");
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<CumsumKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterCumsumKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Cumsum", DataTypesOf(NumericTypes{}), MakeCumsum);
}

}  // namespace ge::device::cpu
