// Pooling: MaxPoolV3 and AvgPoolV2 (NCHW).
#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

// Output [N, C, OH, OW]; `dilated` says whether the op has a dilations attribute.
void InferPool(InferContext& ctx, bool dilated) {
  infer::RequireNCHW(ctx);
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  infer::RequireRank(ctx, x, 4, "x");
  std::vector<int64_t> dims = {x.dim(0), x.dim(1), 1, 1};
  if (!infer::Attr<bool>(ctx, "global_pooling")) {
    const auto ksize = infer::SpatialPair(ctx, "ksize");
    const auto strides = infer::SpatialPair(ctx, "strides");
    const auto dilations = dilated ? infer::SpatialPair(ctx, "dilations") : std::array<int64_t, 2>{1, 1};
    const auto pads = infer::Pads(ctx);
    const bool ceil_mode = infer::Attr<bool>(ctx, "ceil_mode");
    for (size_t axis = 0; axis < 2; ++axis) {
      const std::string context = fmt::format("output {} of x {}", axis == 0 ? "height" : "width", x.ToString());
      dims[2 + axis] = infer::Guarded(ctx, context, [&] {
        return PoolOutputDim(x.dim(2 + axis), ksize[axis], strides[axis], pads[2 * axis], pads[2 * axis + 1],
                             dilations[axis], ceil_mode);
      });
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

OpSchema PoolSchema(const char* op_type) {
  OpSchema schema(op_type);
  schema.Input("x")
      .Output("y")
      .RequiredAttr("ksize", AttrType::kInts)
      .RequiredAttr("strides", AttrType::kInts)
      .Attr("pads", std::vector<int64_t>{0, 0, 0, 0})
      .Attr("ceil_mode", false)
      .Attr("global_pooling", false)
      .Attr("data_format", std::string("NCHW"))
      .TypeConstraint("T", types::Float());
  return schema;
}

}  // namespace

void RegisterPoolOps(OpRegistry& registry) {
  registry.Register(PoolSchema("MaxPoolV3")
                        .Attr("dilations", std::vector<int64_t>{1, 1, 1, 1})
                        .Infer([](InferContext& ctx) { InferPool(ctx, true); })
                        .Doc("Max pooling; padded positions never win."));
  registry.Register(PoolSchema("AvgPoolV2")
                        .Attr("exclusive", true)
                        .Infer([](InferContext& ctx) { InferPool(ctx, false); })
                        .Doc("Average pooling; exclusive = padded positions are not counted."));
}

}  // namespace ge
