// Shape-only ops: the views (Identity, Reshape, Flatten, Squeeze, Unsqueeze),
// Shape and Cast.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// A view's output is its input's bytes under another shape. The runtime makes
// the output share the input buffer when it can; otherwise this copies.
class ViewKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const size_t bytes = static_cast<size_t>(ctx.inputs[0].num_elements()) * DataTypeSize(ctx.inputs[0].dtype);
    if (ctx.outputs[0].data != ctx.inputs[0].data) std::memcpy(ctx.outputs[0].data, ctx.inputs[0].data, bytes);
  }
  int AliasedInput(size_t output_index) const override { return output_index == 0 ? 0 : -1; }
  bool TakesShapesAtRun() const override { return true; }
};

std::unique_ptr<Kernel> MakeView(const Node& node) {
  const int64_t in_elements = InputShape(node, 0).NumElements();
  const int64_t out_elements = OutputShape(node, 0).NumElements();
  if (in_elements != out_elements || node.output(0)->dtype() != InputDtype(node, 0)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("a view must keep dtype and element count: {} {} -> {} {}", DataTypeName(InputDtype(node, 0)),
                     InputShape(node, 0).ToString(), DataTypeName(node.output(0)->dtype()),
                     OutputShape(node, 0).ToString()));
  }
  return std::make_unique<ViewKernel>();
}

// Writes the (static) input shape; known when the kernel is built.
template <typename Index>
class ShapeKernel final : public Kernel {
 public:
  // The dims of the run's input: one kernel serves every shape of a dynamic model.
  void Run(const KernelContext& ctx) const override {
    const std::vector<int64_t>& dims = ctx.inputs[0].shape->dims();
    std::copy(dims.begin(), dims.end(), ctx.outputs[0].as<Index>());
  }
  bool TakesShapesAtRun() const override { return true; }
};

std::unique_ptr<Kernel> MakeShape(const Node& node) {
  const Shape& shape = InputShape(node, 0);
  switch (node.output(0)->dtype()) {
    case DataType::kInt32: return std::make_unique<ShapeKernel<int32_t>>();
    case DataType::kInt64: return std::make_unique<ShapeKernel<int64_t>>();
    default:
      Fail(node, ErrorCode::kUnsupported,
           fmt::format("output dtype {} is not supported; supported: int32, int64",
                       DataTypeName(node.output(0)->dtype())));
  }
}

// --- Cast --------------------------------------------------------------------

// Float to integer conversion saturates and maps NaN to 0, so that every
// input has a defined result (plain C++ conversion is undefined out of range).
template <typename Dst, typename Src>
Dst Convert(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (std::is_same_v<Dst, BFloat16>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<Src>) {
    if (std::isnan(v)) return Dst(0);
    if (v <= static_cast<Src>(std::numeric_limits<Dst>::lowest())) return std::numeric_limits<Dst>::lowest();
    if (v >= static_cast<Src>(std::numeric_limits<Dst>::max())) return std::numeric_limits<Dst>::max();
    return static_cast<Dst>(v);
  } else {
    return static_cast<Dst>(v);
  }
}

template <typename Src, typename Dst>
class CastKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const Src* x = ctx.inputs[0].as<const Src>();
    Dst* y = ctx.outputs[0].as<Dst>();
    const int64_t n = ctx.outputs[0].num_elements();
    ParallelFor(n, n > kParallelGrain, [&](int64_t i) {
      y[i] = Convert<Dst>(Load(x[i]));
    });
  }
};

std::unique_ptr<Kernel> MakeCast(const Node& node) {
  const int64_t dst_value = node.attrs().GetInt("dst_type");
  const DataType src = InputDtype(node, 0);
  const DataType dst = static_cast<DataType>(dst_value);
  if (node.output(0)->dtype() != dst) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("attribute 'dst_type' is {} but the output dtype is {}", dst_value,
                     DataTypeName(node.output(0)->dtype())));
  }
  if (src == dst) return MakeView(node);
  return DispatchDtype(node, src, AllTypes{}, [&](auto src_tag) -> std::unique_ptr<Kernel> {
    return DispatchDtype(node, dst, AllTypes{}, [](auto dst_tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<CastKernel<typename decltype(src_tag)::type, typename decltype(dst_tag)::type>>();
    });
  });
}

}  // namespace

void RegisterShapeKernels(KernelRegistry& registry) {
  const std::vector<DataType> all = DataTypesOf(AllTypes{});
  for (const char* view : {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}) {
    RegisterKernel(registry, view, all, MakeView);
  }
  RegisterKernel(registry, "Shape", all, MakeShape);
  RegisterKernel(registry, "Cast", all, MakeCast);
}

}  // namespace ge::device::cpu
