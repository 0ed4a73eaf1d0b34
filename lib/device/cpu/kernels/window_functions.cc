// HannWindow, HammingWindow, BlackmanWindow (ONNX opset 17): generalized
// cosine windows w[k] = a0 - a1 cos(2 pi k / N) + a2 cos(4 pi k / N), with
// N = size (periodic) or size - 1 (symmetric). Computed in double and stored
// as the output dtype.
#include <cmath>
#include <numbers>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

struct CosineTerms {
  double a0, a1, a2;
};

template <typename T>
class WindowKernel final : public Kernel {
 public:
  WindowKernel(const Node& node, CosineTerms terms)
      : label_(node.Describe()),
        terms_(terms),
        periodic_(node.attrs().GetBool("periodic")),
        length_(OutputShape(node, 0).dim(0)) {}

  void Run(const KernelContext& ctx) const override {
    const int64_t size = ReadIndexTensor(label_, ctx.inputs[0], "size")[0];
    if (size != length_) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: size is {} but the output was shaped for {}", label_, size, length_));
    }
    T* y = ctx.outputs[0].as<T>();
    const double period = static_cast<double>(periodic_ ? size : size - 1);
    for (int64_t k = 0; k < size; ++k) {
      // A symmetric window of one sample has period 0: ONNX gives it the k = 0 value.
      const double phase = period > 0 ? 2 * std::numbers::pi * static_cast<double>(k) / period : 0.0;
      y[k] = Store<T>(static_cast<Compute<T>>(terms_.a0 - terms_.a1 * std::cos(phase) +
                                              terms_.a2 * std::cos(2 * phase)));
    }
  }

 private:
  std::string label_;
  CosineTerms terms_;
  bool periodic_;
  int64_t length_;
};

KernelFactory WindowFactory(CosineTerms terms) {
  return [terms](const Node& node) -> std::unique_ptr<Kernel> {
    const Shape& y = OutputShape(node, 0);
    if (y.rank() != 1 || InputShape(node, 0).NumElements() != 1) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("size {} must be one value and y {} 1-D", InputShape(node, 0).ToString(), y.ToString()));
    }
    return DispatchDtype(node, node.output(0)->dtype(), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<WindowKernel<typename decltype(tag)::type>>(node, terms);
    });
  };
}

}  // namespace

void RegisterWindowKernels(KernelRegistry& registry) {
  const auto size_types = std::vector<DataType>{DataType::kInt32, DataType::kInt64};
  RegisterKernel(registry, "HannWindow", size_types, WindowFactory({0.5, 0.5, 0.0}));
  RegisterKernel(registry, "HammingWindow", size_types, WindowFactory({25.0 / 46.0, 21.0 / 46.0, 0.0}));
  RegisterKernel(registry, "BlackmanWindow", size_types, WindowFactory({0.42, 0.5, 0.08}));
}

}  // namespace ge::device::cpu
