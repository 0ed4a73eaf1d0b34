// Tril and Triu: keep one triangle of the last two dims (relative to the
// diagonal attribute, or the optional run-time input k), zero the rest.
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename Element>
class TriangleKernel final : public Kernel {
 public:
  TriangleKernel(const Node& node, bool upper)
      : label_(node.Describe()),
        upper_(upper),
        diagonal_(node.attrs().GetInt("diagonal")) {}

  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    int64_t diagonal = diagonal_;
    if (ctx.inputs.size() > 1 && ctx.inputs[1].data != nullptr) {
      const std::vector<int64_t> k = ReadIndexTensor(label_, ctx.inputs[1], "k");
      if (k.size() != 1) {
        throw Error(ErrorCode::kInvalidArgument, label_ + ": input k must hold one integer");
      }
      diagonal = k[0];
    }
    const auto* x = ctx.inputs[0].as<const Element>();
    auto* y = ctx.outputs[0].as<Element>();
    const std::vector<int64_t>& dims = ctx.inputs[0].shape->dims();
    const int64_t rows = dims[dims.size() - 2];
    const int64_t cols = dims.back();
    const int64_t total = Product(dims);
    ParallelFor(total, total > kParallelGrain, [&](int64_t i) {
      const int64_t col = i % cols;
      const int64_t row = (i / cols) % rows;
      const bool keep = upper_ ? col - row >= diagonal : col - row <= diagonal;
      y[i] = keep ? x[i] : Element{};
    });
  }

 private:
  std::string label_;
  bool upper_;
  int64_t diagonal_;
};

KernelFactory TriangleFactory(bool upper) {
  return [upper](const Node& node) -> std::unique_ptr<Kernel> {
    if (InputShape(node, 0).rank() < 2) Fail(node, ErrorCode::kInvalidArgument, "x must have rank >= 2");
    return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<TriangleKernel<typename decltype(tag)::type>>(node, upper);
    });
  };
}

}  // namespace

void RegisterTriangleKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Tril", DataTypesOf(AllTypes{}), TriangleFactory(false));
  RegisterKernel(registry, "Triu", DataTypesOf(AllTypes{}), TriangleFactory(true));
}

}  // namespace ge::device::cpu
