// Select (ONNX Where): y = condition ? x1 : x2 with three-way numpy
// broadcasting. It only moves elements, so it dispatches on element size.
#include <fmt/core.h>

#include "device/cpu/kernels/broadcast_layout.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename U>
class SelectKernel final : public Kernel {
 public:
  SelectKernel(const Node& node, BroadcastLayout layout)
      : label_(node.Describe()),
        layout_(std::move(layout)),
        shapes_{InputShape(node, 0), InputShape(node, 1), InputShape(node, 2), OutputShape(node, 0)} {}

  // A run at other shapes (a dynamic model's) computes its own broadcast layout.
  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    if (*ctx.inputs[0].shape == shapes_[0] && *ctx.inputs[1].shape == shapes_[1] &&
        *ctx.inputs[2].shape == shapes_[2] && *ctx.outputs[0].shape == shapes_[3]) {
      return Apply(ctx, layout_);
    }
    const Shape* shapes[] = {ctx.inputs[0].shape, ctx.inputs[1].shape, ctx.inputs[2].shape};
    try {
      Apply(ctx, BroadcastLayout(*ctx.outputs[0].shape, shapes));
    } catch (const Error& e) {
      throw Error(e.code(), fmt::format("{}: {}", label_, e.what()));
    }
  }

 private:
  void Apply(const KernelContext& ctx, const BroadcastLayout& layout) const {
    const bool* cond = ctx.inputs[0].as<const bool>();
    const U* x1 = ctx.inputs[1].as<const U>();
    const U* x2 = ctx.inputs[2].as<const U>();
    U* y = ctx.outputs[0].as<U>();
    const int64_t sc = layout.inner_stride(0), s1 = layout.inner_stride(1), s2 = layout.inner_stride(2);
    const int64_t inner = layout.inner();
    layout.ParallelForRuns([&](int64_t row, int64_t begin, int64_t count) {
      const bool* c = cond + layout.RowOffset(0, row) + begin * sc;
      const U* a = x1 + layout.RowOffset(1, row) + begin * s1;
      const U* b = x2 + layout.RowOffset(2, row) + begin * s2;
      U* out = y + row * inner + begin;
      for (int64_t i = 0; i < count; ++i) out[i] = c[i * sc] ? a[i * s1] : b[i * s2];
    });
  }

  std::string label_;
  BroadcastLayout layout_;
  Shape shapes_[4];  // cond, x1, x2 and y, which layout_ is for
};

std::unique_ptr<Kernel> MakeSelect(const Node& node) {
  if (InputDtype(node, 0) != DataType::kBool) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("input 0 (condition) must be bool, got {}", DataTypeName(InputDtype(node, 0))));
  }
  if (InputDtype(node, 1) != InputDtype(node, 2)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("inputs x1 and x2 have different dtypes {} and {}", DataTypeName(InputDtype(node, 1)),
                     DataTypeName(InputDtype(node, 2))));
  }
  const Shape* shapes[] = {&InputShape(node, 0), &InputShape(node, 1), &InputShape(node, 2)};
  std::optional<BroadcastLayout> layout;
  try {
    layout.emplace(OutputShape(node, 0), shapes);
  } catch (const Error& e) {
    Fail(node, e.code(), e.what());
  }
  return DispatchElementSize(node, InputDtype(node, 1), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<SelectKernel<typename decltype(tag)::type>>(node, *layout);
  });
}

}  // namespace

void RegisterSelectKernels(KernelRegistry& registry) {
  // Keyed by input 0, the bool condition; x1/x2 may have any dtype.
  RegisterKernel(registry, "Select", {DataType::kBool}, MakeSelect);
}

}  // namespace ge::device::cpu
