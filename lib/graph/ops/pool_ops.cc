// Pooling: MaxPoolV3 and AvgPoolV2 (NCHW or NHWC), MaxPool3D and AvgPool3D
// (NCDHW), MaxPoolWithArgmax (NCHW or NCDHW) and its inverse MaxUnpool.
#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"
#include "graph/ops/window_infer.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

// A pad at least as wide as the dilated window makes windows that see only
// padding: max pooling has no value for them, average pooling divides by 0.
void RequirePadsWithinWindow(InferContext& ctx, const std::vector<int64_t>& ksize,
                             const std::vector<int64_t>& dilations, const std::vector<int64_t>& pads) {
  for (size_t a = 0; a < ksize.size(); ++a) {
    const int64_t extent = dilations[a] * (ksize[a] - 1) + 1;
    if (pads[2 * a] >= extent || pads[2 * a + 1] >= extent) {
      ctx.Fail(fmt::format("attribute 'pads' [{}] has ({}, {}) on the {} axis; pads must be less than the window "
                           "extent {} (ksize {}, dilation {}), i.e. in [0, {}]",
                           fmt::join(pads, ", "), pads[2 * a], pads[2 * a + 1], infer::SpatialName(a, ksize.size()),
                           extent, ksize[a], dilations[a], extent - 1));
    }
  }
}

// Output [N, C, out...] ([N, out..., C] for NHWC, which allow_channels_last
// admits); `dilated` says whether the op has a dilations attribute.
// Sets output 0 and returns its shape.
Shape InferPool(InferContext& ctx, size_t spatial, bool dilated, bool allow_channels_last) {
  const WindowLayout layout = infer::ReadWindowLayout(ctx, spatial, allow_channels_last);
  const size_t rank = layout.rank();
  const Shape x = infer::WithRank(ctx.input_shape(0), rank);
  infer::RequireRank(ctx, x, rank, "x");
  std::vector<int64_t> dims(rank, 1);
  dims[0] = x.dim(0);
  dims[layout.channel_axis()] = x.dim(layout.channel_axis());
  // Only the 2-D ops have global_pooling.
  const bool global = spatial == 2 && infer::Attr<bool>(ctx, "global_pooling");
  if (!global) {
    const auto ksize = infer::SpatialValues(ctx, "ksize", layout);
    const auto strides = infer::SpatialValues(ctx, "strides", layout);
    const auto dilations =
        dilated ? infer::SpatialValues(ctx, "dilations", layout) : std::vector<int64_t>(spatial, 1);
    const auto pads = infer::SpatialPads(ctx, spatial);
    const bool ceil_mode = infer::Attr<bool>(ctx, "ceil_mode");
    RequirePadsWithinWindow(ctx, ksize, dilations, pads);
    for (size_t a = 0; a < spatial; ++a) {
      const std::string context = fmt::format("output {} of x {}", infer::SpatialName(a, spatial), x.ToString());
      const size_t axis = layout.spatial_axis(a);
      dims[axis] = infer::Guarded(ctx, context, [&] {
        return PoolOutputDim(x.dim(axis), ksize[a], strides[a], pads[2 * a], pads[2 * a + 1], dilations[a],
                             ceil_mode);
      });
    }
  }
  Shape y(std::move(dims));
  ctx.set_output(0, ctx.input_dtype(0), y);
  return y;
}

OpSchema PoolSchema(const char* op_type, size_t spatial) {
  OpSchema schema(op_type);
  schema.Input("x")
      .Output("y")
      .RequiredAttr("ksize", AttrType::kInts)
      .RequiredAttr("strides", AttrType::kInts)
      .Attr("pads", std::vector<int64_t>(2 * spatial, 0))
      .Attr("ceil_mode", false)
      .Attr("data_format", std::string(infer::DataFormatFor(spatial)))
      .InferSymbolic(symbolic::BatchPassThrough);
  return schema;
}

// Max pooling only compares, so it takes every numeric type ONNX allows.
const std::vector<DataType>& MaxPoolTypes() {
  static const std::vector<DataType> dtypes = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                               DataType::kBFloat16, DataType::kInt8, DataType::kUInt8,
                                               DataType::kInt16};
  return dtypes;
}

// AvgPoolV2 also averages int8 (quantized models): offset_x is the zero point
// that padded taps hold when they are counted (exclusive = false).
void InferAvgPool(InferContext& ctx) {
  const int64_t offset_x = infer::Attr<int64_t>(ctx, "offset_x");
  if (ctx.input_dtype(0) == DataType::kInt8 && (offset_x < -128 || offset_x > 127)) {
    ctx.Fail(fmt::format("attribute 'offset_x' is {}; for int8 x it must lie in [-128, 127]", offset_x));
  }
  if (ctx.input_dtype(0) != DataType::kInt8 && ctx.input_dtype(0) != DataType::kUndefined && offset_x != 0) {
    ctx.Fail(fmt::format("attribute 'offset_x' is {}; it is the zero point of int8 x and must be 0 for {}", offset_x,
                         DataTypeName(ctx.input_dtype(0))));
  }
  InferPool(ctx, 2, false, /*allow_channels_last=*/true);
}

// The values as MaxPoolV3/MaxPool3D, plus the int64 flat index of each maximum.
void InferMaxPoolWithArgmax(InferContext& ctx) {
  const size_t spatial = infer::Attr<std::string>(ctx, "data_format") == "NCDHW" ? 3 : 2;
  ctx.set_output(1, DataType::kInt64, InferPool(ctx, spatial, true, /*allow_channels_last=*/false));
}

// x [N, C, spatial...] -> y [N, C, (in - 1) * stride + k - pads...], or the
// constant output_shape.
void InferMaxUnpool(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (ctx.has_input(2)) {
    const Shape& shape = ctx.input_shape(2);
    if (auto dims = infer::ConstantInts(ctx, 2)) {
      ctx.set_output(0, ctx.input_dtype(0), Shape(*dims));
    } else if (!shape.unknown_rank() && shape.rank() == 1 && shape.dim(0) >= 0) {
      ctx.set_output(0, ctx.input_dtype(0),
                     infer::UnknownDims(ctx, shape.dim(0), fmt::format("the length of output_shape {}", shape.ToString())));
    } else {
      ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    }
    return;
  }
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  if (x.rank() < 3) ctx.Fail(fmt::format("x must be N, C, spatial..., got {}", x.ToString()));
  const size_t spatial = x.rank() - 2;
  const auto ksize = infer::SpatialValues(ctx, "ksize", spatial);
  const auto strides = infer::SpatialValues(ctx, "strides", spatial);
  const auto pads = infer::SpatialPads(ctx, spatial);
  std::vector<int64_t> dims = x.dims();
  for (size_t a = 0; a < spatial; ++a) {
    if (dims[a + 2] == Shape::kUnknownDim) continue;
    // in * stride + (k - stride - pads): the window values are within int32, so only the
    // product and the one sum with it can leave int64.
    const std::string what = fmt::format("output dim {} for x {}", a + 2, x.ToString());
    dims[a + 2] = infer::CheckedDimAdd(ctx, infer::CheckedDimMul(ctx, dims[a + 2], strides[a], what),
                                       ksize[a] - strides[a] - pads[2 * a] - pads[2 * a + 1], what);
    if (dims[a + 2] <= 0) ctx.Fail(fmt::format("the pads leave an output {} of {}", fmt::format("dim {}", a + 2), dims[a + 2]));
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

}  // namespace

void RegisterPoolOps(OpRegistry& registry) {
  registry.Register(PoolSchema("MaxPoolV3", 2)
                        .Attr("global_pooling", false)
                        .Attr("dilations", std::vector<int64_t>{1, 1, 1, 1})
                        .TypeConstraint("T", MaxPoolTypes())
                        .Infer([](InferContext& ctx) { InferPool(ctx, 2, true, /*allow_channels_last=*/true); })
                        .Doc("Max pooling; padded positions never win. x and y NCHW, or NHWC with data_format "
                             "\"NHWC\" (ksize, strides and dilations then in NHWC order)."));
  registry.Register(PoolSchema("AvgPoolV2", 2)
                        .Attr("global_pooling", false)
                        .Attr("exclusive", true)
                        .Attr("offset_x", int64_t{0})
                        .TypeConstraint("T", [] {
                          std::vector<DataType> dtypes = types::Float();
                          dtypes.push_back(DataType::kInt8);
                          return dtypes;
                        }())
                        .Infer(InferAvgPool)
                        .Doc("Average pooling; exclusive = padded positions are not counted. int8 rounds half to "
                             "even; counted padding holds offset_x. x and y NCHW, or NHWC with data_format "
                             "\"NHWC\" (ksize and strides then in NHWC order)."));
  registry.Register(PoolSchema("MaxPool3D", 3)
                        .Attr("dilations", std::vector<int64_t>{1, 1, 1, 1, 1})
                        .TypeConstraint("T", MaxPoolTypes())
                        .Infer([](InferContext& ctx) { InferPool(ctx, 3, true, /*allow_channels_last=*/false); })
                        .Doc("3-D max pooling (NCDHW); pads [front, back, top, bottom, left, right]."));
  registry.Register(PoolSchema("MaxPoolWithArgmax", 2)
                        .Output("argmax", "TArgmax")
                        .Attr("global_pooling", false)
                        .Attr("dilations", std::vector<int64_t>{1, 1, 1, 1})
                        .Attr("storage_order", int64_t{0})
                        .TypeConstraint("T", MaxPoolTypes())
                        .TypeConstraint("TArgmax", {DataType::kInt64})
                        .Infer(InferMaxPoolWithArgmax)
                        .Doc("Max pooling (NCHW or NCDHW) with argmax, the flat index of each maximum in x "
                             "(row-major; storage_order 1: column-major within each plane)."));
  registry.Register(OpSchema("MaxUnpool")
                        .Input("x")
                        .Input("indices", "TIndex")
                        .OptionalInput("output_shape", "TIndex")
                        .Output("y")
                        .RequiredAttr("ksize", AttrType::kInts)
                        .RequiredAttr("strides", AttrType::kInts)
                        .RequiredAttr("pads", AttrType::kInts)
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TIndex", {DataType::kInt64})
                        .Infer(InferMaxUnpool)
                        .Doc("Zeros with x scattered to the flat indices (MaxPoolWithArgmax's argmax); window attrs in "
                             "N, C, spatial order, pads (begin, end) per axis."));
  registry.Register(PoolSchema("AvgPool3D", 3)
                        .Attr("count_include_pad", true)
                        .TypeConstraint("T", types::Float())
                        .Infer([](InferContext& ctx) { InferPool(ctx, 3, false, /*allow_channels_last=*/false); })
                        .Doc("3-D average pooling (NCDHW); count_include_pad = padded positions are counted."));
}

}  // namespace ge
