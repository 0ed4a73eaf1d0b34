// Convolutions: Conv2D (NCHW or NHWC) and Conv2DTranspose (NCHW), Conv3D and
// Conv3DTranspose (NCDHW). One inference function per kind serves both
// spatial ranks. The filter is [Cout, Cin/groups, k...] in every layout.
#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/integer_products.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"
#include "graph/ops/window_infer.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

// Attributes shared by both convolutions, read and validated once.
struct ConvParams {
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // (begin, end) per spatial axis
  int64_t groups;
};

ConvParams ReadConvParams(InferContext& ctx, const WindowLayout& layout) {
  ConvParams p{infer::SpatialValues(ctx, "strides", layout), infer::SpatialValues(ctx, "dilations", layout),
               infer::SpatialPads(ctx, layout.spatial), infer::Attr<int64_t>(ctx, "groups")};
  if (p.groups < 1) ctx.Fail(fmt::format("attribute 'groups' must be >= 1, got {}", p.groups));
  return p;
}

bool KernelKnown(const Shape& filter) {
  for (size_t d = 2; d < filter.rank(); ++d) {
    if (filter.dim(d) == Shape::kUnknownDim) return false;
  }
  return true;
}

void CheckBias(InferContext& ctx, size_t bias_input, int64_t out_channels) {
  if (!ctx.has_input(bias_input)) return;
  const Shape& bias = ctx.input_shape(bias_input);
  infer::RequireRank(ctx, bias, 1, "bias");
  if (!bias.unknown_rank()) infer::MergeDim(ctx, bias.dim(0), out_channels, "bias length and output channels");
}

void CheckGroups(InferContext& ctx, int64_t channels, int64_t groups, const char* what) {
  if (channels != Shape::kUnknownDim && channels % groups != 0) {
    ctx.Fail(fmt::format("{} ({}) is not divisible by groups ({})", what, channels, groups));
  }
}

// x [N, Cin, spatial...], filter [Cout, Cin/groups, k...] -> y's shape [N, Cout, out...]; with NHWC
// (allow_channels_last) x [N, spatial..., Cin] -> y [N, out..., Cout].
Shape InferConvShape(InferContext& ctx, size_t spatial, size_t bias_input, bool allow_channels_last) {
  const WindowLayout layout = infer::ReadWindowLayout(ctx, spatial, allow_channels_last);
  const ConvParams p = ReadConvParams(ctx, layout);
  const size_t rank = layout.rank();
  const Shape x = infer::WithRank(ctx.input_shape(0), rank);
  const Shape filter = infer::WithRank(ctx.input_shape(1), rank);
  infer::RequireRank(ctx, x, rank, "x");
  infer::RequireRank(ctx, filter, rank, "filter");

  const int64_t cin = x.dim(layout.channel_axis());
  const int64_t cout = filter.dim(0);
  CheckGroups(ctx, cin, p.groups, "input channels");
  CheckGroups(ctx, cout, p.groups, "output channels");
  const int64_t grouped_cin = infer::CheckedDimMul(
      ctx, filter.dim(1), p.groups, fmt::format("channels of filter {} times groups {}", filter.ToString(), p.groups));
  if (cin != Shape::kUnknownDim && grouped_cin != Shape::kUnknownDim && grouped_cin != cin) {
    ctx.Fail(fmt::format("input channels of x {} ({}) do not match filter {} (filter channels {} x groups {})",
                         x.ToString(), cin, filter.ToString(), filter.dim(1), p.groups));
  }
  CheckBias(ctx, bias_input, cout);

  // An unknown kernel size leaves the spatial dims unknown.
  std::vector<int64_t> dims(rank, Shape::kUnknownDim);
  dims[0] = x.dim(0);
  dims[layout.channel_axis()] = cout;
  if (KernelKnown(filter)) {
    for (size_t a = 0; a < spatial; ++a) {
      dims[layout.spatial_axis(a)] = infer::Guarded(ctx, fmt::format("output {}", infer::SpatialName(a, spatial)), [&] {
        return ConvOutputDim(x.dim(layout.spatial_axis(a)), filter.dim(a + 2), p.strides[a], p.pads[2 * a],
                             p.pads[2 * a + 1], p.dilations[a]);
      });
    }
  }
  return Shape(std::move(dims));
}

void InferConv(InferContext& ctx, size_t spatial) {
  const Shape y = InferConvShape(ctx, spatial, 2, /*allow_channels_last=*/true);
  ctx.set_output(0, infer::ProductOutputDtype(ctx, {0, 1, 2}), y);
}

// The int8 convolution with its AscendDequant / AscendRequant folded in:
// y = (conv(x - offset_x, filter) + bias) * scale[c], relu'd with relu_flag,
// as float32 (dtype 0) or int8 (dtype 2, plus the scale words' offset).
void InferQuantConv2D(InferContext& ctx) {
  const Shape y = InferConvShape(ctx, 2, 3, /*allow_channels_last=*/true);
  infer::ProductOutputDtype(ctx, {0, 1, 3});  // int8 x and filter, int32 bias
  const Shape& scale = ctx.input_shape(2);
  infer::RequireRank(ctx, scale, 1, "scale");
  if (!scale.unknown_rank() && scale.dim(0) != 1 && !y.unknown_rank()) {
    const size_t channels = infer::ReadWindowLayout(ctx, 2, /*allow_channels_last=*/true).channel_axis();
    infer::MergeDim(ctx, scale.dim(0), y.dim(channels), "scale length and output channels");
  }
  const int64_t dtype = infer::Attr<int64_t>(ctx, "dtype");
  if (dtype != static_cast<int64_t>(DataType::kFloat) && dtype != static_cast<int64_t>(DataType::kInt8)) {
    ctx.Fail(fmt::format("attribute 'dtype' must be 0 (float32) or 2 (int8), got {}", dtype));
  }
  ctx.set_output(0, static_cast<DataType>(dtype), y);
}

// input_size (the output shape), x [N, Cin, spatial...], filter [Cin, Cout/groups, k...] -> y [N, Cout, out...].
void InferConvTranspose(InferContext& ctx, size_t spatial) {
  const ConvParams p = ReadConvParams(ctx, infer::ReadWindowLayout(ctx, spatial, /*allow_channels_last=*/false));
  const size_t rank = spatial + 2;
  const auto& output_padding = infer::Attr<std::vector<int64_t>>(ctx, "output_padding");
  if (output_padding.size() != rank) {
    ctx.Fail(fmt::format("attribute 'output_padding' must have {} values in {} order, got [{}]", rank,
                         infer::DataFormatFor(spatial), fmt::join(output_padding, ", ")));
  }
  const Shape x = infer::WithRank(ctx.input_shape(1), rank);
  const Shape filter = infer::WithRank(ctx.input_shape(2), rank);
  infer::RequireRank(ctx, x, rank, "x");
  infer::RequireRank(ctx, filter, rank, "filter");

  const int64_t cin = infer::MergeDim(ctx, x.dim(1), filter.dim(0), "input channels of x and filter dim 0");
  CheckGroups(ctx, cin, p.groups, "input channels");
  const int64_t cout = infer::CheckedDimMul(
      ctx, filter.dim(1), p.groups, fmt::format("channels of filter {} times groups {}", filter.ToString(), p.groups));
  CheckBias(ctx, 3, cout);

  std::vector<int64_t> dims(rank, Shape::kUnknownDim);
  dims[0] = x.dim(0);
  dims[1] = cout;
  if (KernelKnown(filter)) {
    for (size_t a = 0; a < spatial; ++a) {
      dims[a + 2] = infer::Guarded(ctx, fmt::format("output {}", infer::SpatialName(a, spatial)), [&] {
        return ConvTransposeOutputDim(x.dim(a + 2), filter.dim(a + 2), p.strides[a], p.pads[2 * a],
                                      p.pads[2 * a + 1], p.dilations[a], output_padding[a + 2]);
      });
    }
  }
  // input_size states the output shape; it must agree with what the attributes imply.
  if (auto size = infer::ConstantInts(ctx, 0)) {
    if (size->size() != rank) {
      ctx.Fail(fmt::format("input_size must have {} values ({}), got [{}]", rank, infer::DataFormatFor(spatial),
                           fmt::join(*size, ", ")));
    }
    for (size_t i = 0; i < rank; ++i) {
      dims[i] = infer::MergeDim(ctx, dims[i], (*size)[i], fmt::format("input_size[{}] and the computed output dim", i));
    }
  }
  ctx.set_output(0, infer::ProductOutputDtype(ctx, {1, 2, 3}), Shape(std::move(dims)));
}

// Float operands of one dtype, or the quantized form (integer_products.h):
// int8/int16 x, int8 filter, int32 bias and y; offset_x is x's zero point.
OpSchema& ProductTypes(OpSchema& schema) {
  return schema.TypeConstraint("T", infer::WithTypes(types::Float(), infer::QuantizedActivationTypes()))
      .TypeConstraint("TFilter", infer::WithTypes(types::Float(), {DataType::kInt8}))
      .TypeConstraint("TBias", infer::WithTypes(types::Float(), {DataType::kInt32}));
}

// The window attributes every convolution has, and offset_x (x's zero point in the quantized form).
OpSchema& WindowAttrs(OpSchema& schema, size_t spatial) {
  return schema.RequiredAttr("strides", AttrType::kInts)
      .RequiredAttr("pads", AttrType::kInts)
      .Attr("dilations", std::vector<int64_t>(spatial + 2, 1))
      .Attr("groups", int64_t{1})
      .Attr("data_format", std::string(infer::DataFormatFor(spatial)))
      .Attr("offset_x", int64_t{0});
}

OpSchema ConvSchema(const char* op_type, size_t spatial) {
  OpSchema schema(op_type);
  schema.Input("x")
      .Input("filter", "TFilter")
      .OptionalInput("bias", "TBias")
      .OptionalInput("offset_w", "TOffset")
      // CPU-internal: the residual Add the conv_post_op_fusion pass folds in, shaped like y (graph/conv_post_ops.h).
      .OptionalInput("fused_addend", "TBias")
      .Output("y", "TBias");
  WindowAttrs(schema, spatial)
      .TypeConstraint("TOffset", {DataType::kInt8})
      .Infer([spatial](InferContext& ctx) { InferConv(ctx, spatial); })
      .InferSymbolic(symbolic::BatchPassThrough);
  return ProductTypes(schema);
}

OpSchema ConvTransposeSchema(const char* op_type, size_t spatial) {
  OpSchema schema(op_type);
  schema.Input("input_size", "TSize")
      .Input("x")
      .Input("filter", "TFilter")
      .OptionalInput("bias", "TBias")
      .OptionalInput("offset_w", "TOffset")
      .Output("y", "TBias");
  WindowAttrs(schema, spatial)
      .Attr("output_padding", std::vector<int64_t>(spatial + 2, 0))
      .TypeConstraint("TSize", types::IndexTypes())
      .TypeConstraint("TOffset", {DataType::kInt8})
      .Infer([spatial](InferContext& ctx) { InferConvTranspose(ctx, spatial); });
  return ProductTypes(schema);
}

}  // namespace

void RegisterConvOps(OpRegistry& registry) {
  OpSchema quant_conv("QuantConv2D");
  quant_conv.Input("x", "TX").Input("filter", "TFilter").Input("scale", "TScale").OptionalInput("bias", "TBias");
  registry.Register(WindowAttrs(quant_conv.Output("y", "TY"), 2)
                        .Attr("dtype", static_cast<int64_t>(DataType::kFloat))
                        .Attr("relu_flag", false)
                        .TypeConstraint("TX", {DataType::kInt8})
                        .TypeConstraint("TFilter", {DataType::kInt8})
                        .TypeConstraint("TScale", {DataType::kUInt64})
                        .TypeConstraint("TBias", {DataType::kInt32})
                        .TypeConstraint("TY", {DataType::kFloat, DataType::kInt8})
                        .Infer(InferQuantConv2D)
                        .Doc("int8 Conv2D with its AscendDequant (dtype float32) or AscendRequant (dtype int8) "
                             "folded in; scale holds the same uint64 words (docs/quantization.md). x and y NCHW, "
                             "or NHWC with data_format \"NHWC\" as for Conv2D."));
  registry.Register(ConvSchema("Conv2D", 2).Doc(
      "2-D convolution; x and y NCHW, or NHWC with data_format \"NHWC\" (strides and dilations then in NHWC "
      "order); filter [Cout, Cin/groups, kh, kw] in both layouts, pads [top, bottom, left, right]."));
  registry.Register(ConvSchema("Conv3D", 3).Doc(
      "3-D convolution (NCDHW); filter [Cout, Cin/groups, kd, kh, kw], pads [front, back, top, bottom, left, "
      "right]."));
  registry.Register(ConvTransposeSchema("Conv2DTranspose", 2)
                        .Doc("Transposed 2-D convolution; input_size is the output shape (NCHW), filter "
                             "[Cin, Cout/groups, kh, kw]."));
  registry.Register(ConvTransposeSchema("Conv3DTranspose", 3)
                        .Doc("Transposed 3-D convolution; input_size is the output shape (NCDHW), filter "
                             "[Cin, Cout/groups, kd, kh, kw]."));
}

}  // namespace ge
