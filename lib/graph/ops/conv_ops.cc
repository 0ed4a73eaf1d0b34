// Convolutions: Conv2D and Conv2DTranspose (NCHW).
#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

// Attributes shared by both convolutions, read and validated once.
struct ConvParams {
  std::array<int64_t, 2> strides;
  std::array<int64_t, 2> dilations;
  std::array<int64_t, 4> pads;  // top, bottom, left, right
  int64_t groups;
};

ConvParams ReadConvParams(InferContext& ctx) {
  infer::RequireNCHW(ctx);
  ConvParams p{infer::SpatialPair(ctx, "strides"), infer::SpatialPair(ctx, "dilations"), infer::Pads(ctx),
               infer::Attr<int64_t>(ctx, "groups")};
  if (p.groups < 1) ctx.Fail(fmt::format("attribute 'groups' must be >= 1, got {}", p.groups));
  return p;
}

bool KernelKnown(const Shape& filter) {
  return filter.dim(2) != Shape::kUnknownDim && filter.dim(3) != Shape::kUnknownDim;
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

// x [N, Cin, H, W], filter [Cout, Cin/groups, kh, kw] -> y [N, Cout, OH, OW].
void InferConv2D(InferContext& ctx) {
  const ConvParams p = ReadConvParams(ctx);
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  const Shape filter = infer::WithRank(ctx.input_shape(1), 4);
  infer::RequireRank(ctx, x, 4, "x");
  infer::RequireRank(ctx, filter, 4, "filter");

  const int64_t cin = x.dim(1);
  const int64_t cout = filter.dim(0);
  CheckGroups(ctx, cin, p.groups, "input channels");
  CheckGroups(ctx, cout, p.groups, "output channels");
  if (cin != Shape::kUnknownDim && filter.dim(1) != Shape::kUnknownDim && filter.dim(1) * p.groups != cin) {
    ctx.Fail(fmt::format("input channels of x {} ({}) do not match filter {} (filter channels {} x groups {})",
                         x.ToString(), cin, filter.ToString(), filter.dim(1), p.groups));
  }
  CheckBias(ctx, 2, cout);

  // An unknown kernel size leaves the spatial dims unknown.
  std::vector<int64_t> dims = {x.dim(0), cout, Shape::kUnknownDim, Shape::kUnknownDim};
  if (KernelKnown(filter)) {
    dims[2] = infer::Guarded(ctx, "output height", [&] {
      return ConvOutputDim(x.dim(2), filter.dim(2), p.strides[0], p.pads[0], p.pads[1], p.dilations[0]);
    });
    dims[3] = infer::Guarded(ctx, "output width", [&] {
      return ConvOutputDim(x.dim(3), filter.dim(3), p.strides[1], p.pads[2], p.pads[3], p.dilations[1]);
    });
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

// input_size (the output shape), x [N, Cin, H, W], filter [Cin, Cout/groups, kh, kw] -> y [N, Cout, OH, OW].
void InferConv2DTranspose(InferContext& ctx) {
  const ConvParams p = ReadConvParams(ctx);
  const auto& output_padding = infer::Attr<std::vector<int64_t>>(ctx, "output_padding");
  if (output_padding.size() != 4) {
    ctx.Fail(fmt::format("attribute 'output_padding' must have 4 values in NCHW order, got [{}]",
                         fmt::join(output_padding, ", ")));
  }
  const Shape x = infer::WithRank(ctx.input_shape(1), 4);
  const Shape filter = infer::WithRank(ctx.input_shape(2), 4);
  infer::RequireRank(ctx, x, 4, "x");
  infer::RequireRank(ctx, filter, 4, "filter");

  const int64_t cin = infer::MergeDim(ctx, x.dim(1), filter.dim(0), "input channels of x and filter dim 0");
  CheckGroups(ctx, cin, p.groups, "input channels");
  const int64_t cout = filter.dim(1) == Shape::kUnknownDim ? Shape::kUnknownDim : filter.dim(1) * p.groups;
  CheckBias(ctx, 3, cout);

  std::vector<int64_t> dims = {x.dim(0), cout, Shape::kUnknownDim, Shape::kUnknownDim};
  if (KernelKnown(filter)) {
    dims[2] = infer::Guarded(ctx, "output height", [&] {
      return ConvTransposeOutputDim(x.dim(2), filter.dim(2), p.strides[0], p.pads[0], p.pads[1], p.dilations[0],
                                    output_padding[2]);
    });
    dims[3] = infer::Guarded(ctx, "output width", [&] {
      return ConvTransposeOutputDim(x.dim(3), filter.dim(3), p.strides[1], p.pads[2], p.pads[3], p.dilations[1],
                                    output_padding[3]);
    });
  }
  // input_size states the output shape; it must agree with what the attributes imply.
  if (auto size = infer::ConstantInts(ctx, 0)) {
    if (size->size() != 4) {
      ctx.Fail(fmt::format("input_size must have 4 values (NCHW), got [{}]", fmt::join(*size, ", ")));
    }
    for (size_t i = 0; i < 4; ++i) {
      dims[i] = infer::MergeDim(ctx, dims[i], (*size)[i], fmt::format("input_size[{}] and the computed output dim", i));
    }
  }
  ctx.set_output(0, ctx.input_dtype(1), Shape(std::move(dims)));
}

}  // namespace

void RegisterConvOps(OpRegistry& registry) {
  const std::vector<int64_t> ones = {1, 1, 1, 1};
  registry.Register(OpSchema("Conv2D")
                        .Input("x")
                        .Input("filter")
                        .OptionalInput("bias")
                        .OptionalInput("offset_w", "TOffset")
                        .Output("y")
                        .RequiredAttr("strides", AttrType::kInts)
                        .RequiredAttr("pads", AttrType::kInts)
                        .Attr("dilations", ones)
                        .Attr("groups", int64_t{1})
                        .Attr("data_format", std::string("NCHW"))
                        .Attr("offset_x", int64_t{0})
                        .TypeConstraint("T", types::Float())
                        .TypeConstraint("TOffset", {DataType::kInt8})
                        .Infer(InferConv2D)
                        .Doc("2-D convolution; filter [Cout, Cin/groups, kh, kw], pads [top, bottom, left, right]."));
  registry.Register(OpSchema("Conv2DTranspose")
                        .Input("input_size", "TSize")
                        .Input("x")
                        .Input("filter")
                        .OptionalInput("bias")
                        .OptionalInput("offset_w", "TOffset")
                        .Output("y")
                        .RequiredAttr("strides", AttrType::kInts)
                        .RequiredAttr("pads", AttrType::kInts)
                        .Attr("dilations", ones)
                        .Attr("groups", int64_t{1})
                        .Attr("data_format", std::string("NCHW"))
                        .Attr("output_padding", std::vector<int64_t>{0, 0, 0, 0})
                        .Attr("offset_x", int64_t{0})
                        .TypeConstraint("T", types::Float())
                        .TypeConstraint("TSize", types::IndexTypes())
                        .TypeConstraint("TOffset", {DataType::kInt8})
                        .Infer(InferConv2DTranspose)
                        .Doc("Transposed 2-D convolution; input_size is the output shape (NCHW), filter "
                             "[Cin, Cout/groups, kh, kw]."));
}

}  // namespace ge
