// Linear quantization with ONNX semantics: QuantizeLinear, DequantizeLinear,
// DynamicQuantizeLinear,
// and the integer products MatMulInteger, ConvInteger, QLinearMatMul and
// QLinearConv.
//
// They keep ONNX's names because no Ascend op has their semantics: CANN's
// AscendQuant/AscendDequant carry scale and offset as attributes (with the
// scale multiplied, not divided), and the quantization passes (issue 6) use
// those names with CANN's conventions. Here scales and zero points are
// tensor inputs, per tensor or per axis, as in ONNX (docs/op-set.md).
#include <fmt/core.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

const std::vector<DataType>& QuantTypes() {
  static const std::vector<DataType> types = {DataType::kInt8, DataType::kUInt8};
  return types;
}

// A scale or zero point: a scalar (or one element) for the whole tensor, or a
// 1-D tensor with one entry per slice of x along `axis`.
void CheckQuantParam(InferContext& ctx, size_t input, const Shape& x, int64_t axis, const std::string& what) {
  if (!ctx.has_input(input)) return;
  const Shape& param = ctx.input_shape(input);
  if (param.unknown_rank() || param.rank() == 0) return;
  if (param.rank() != 1) ctx.Fail(fmt::format("{} must be a scalar or 1-D, got {}", what, param.ToString()));
  if (param.dim(0) == 1 || x.unknown_rank()) return;
  const int64_t normalized = infer::Axis(ctx, axis, x.rank(), "attribute 'axis'");
  infer::MergeDim(ctx, param.dim(0), x.dim(normalized), fmt::format("{} length and dim {} of x", what, normalized));
}

// A per-tensor scale or zero point: one value (the kernels read element 0).
void CheckPerTensorParams(InferContext& ctx, std::initializer_list<std::pair<size_t, const char*>> params) {
  for (const auto& [input, what] : params) {
    if (!ctx.has_input(input)) continue;
    const Shape& param = ctx.input_shape(input);
    if (param.IsStatic() && param.NumElements() != 1) {
      ctx.Fail(fmt::format("{} must hold one value, got shape {}", what, param.ToString()));
    }
  }
}

// y = saturate(round_half_even(x / y_scale) + y_zero_point); y has the zero
// point's dtype (uint8 without one).
void InferQuantizeLinear(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t axis = infer::Attr<int64_t>(ctx, "axis");
  CheckQuantParam(ctx, 1, x, axis, "y_scale");
  CheckQuantParam(ctx, 2, x, axis, "y_zero_point");
  ctx.set_output(0, ctx.has_input(2) ? ctx.input_dtype(2) : DataType::kUInt8, x);
}

// y [x's shape] (uint8) with the scalar y_scale and y_zero_point it computed.
void InferDynamicQuantizeLinear(InferContext& ctx) {
  ctx.set_output(0, DataType::kUInt8, ctx.input_shape(0));
  ctx.set_output(1, DataType::kFloat, Shape({}));
  ctx.set_output(2, DataType::kUInt8, Shape({}));
}

// y = (x - x_zero_point) * x_scale in float32.
void InferDequantizeLinear(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const int64_t axis = infer::Attr<int64_t>(ctx, "axis");
  CheckQuantParam(ctx, 1, x, axis, "x_scale");
  CheckQuantParam(ctx, 2, x, axis, "x_zero_point");
  ctx.set_output(0, DataType::kFloat, x);
}

// numpy matmul of a and b (1-D operands promoted and their dim dropped; batch
// dims broadcast).
Shape MatMulShape(InferContext& ctx, const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return Shape::UnknownRank();
  if (a.rank() == 0 || b.rank() == 0) {
    ctx.Fail(fmt::format("operands must have rank >= 1, got {} and {}", a.ToString(), b.ToString()));
  }
  std::vector<int64_t> ad = a.dims(), bd = b.dims();
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  infer::MergeDim(ctx, ad.back(), bd[bd.size() - 2],
                  fmt::format("contracted dims of {} and {}", a.ToString(), b.ToString()));
  const Shape batch = infer::Broadcast(ctx, Shape(std::vector<int64_t>(ad.begin(), ad.end() - 2)),
                                       Shape(std::vector<int64_t>(bd.begin(), bd.end() - 2)));
  std::vector<int64_t> out = batch.dims();
  if (a.rank() > 1) out.push_back(ad[ad.size() - 2]);
  if (b.rank() > 1) out.push_back(bd.back());
  return Shape(std::move(out));
}

// (a - a_zero_point) x (b - b_zero_point) accumulated in int32.
void InferMatMulInteger(InferContext& ctx) {
  ctx.set_output(0, DataType::kInt32, MatMulShape(ctx, ctx.input_shape(0), ctx.input_shape(1)));
}

// Inputs a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point.
void InferQLinearMatMul(InferContext& ctx) {
  CheckPerTensorParams(ctx, {{1, "a_scale"}, {2, "a_zero_point"}, {6, "y_scale"}, {7, "y_zero_point"}});
  ctx.set_output(0, ctx.input_dtype(7), MatMulShape(ctx, ctx.input_shape(0), ctx.input_shape(3)));
}

// x [N, C, H, W], w [M, C/groups, kh, kw] -> [N, M, OH, OW] with Conv2D's attributes.
Shape ConvShape(InferContext& ctx, size_t x_input, size_t w_input) {
  infer::RequireNCHW(ctx);
  const auto strides = infer::SpatialPair(ctx, "strides");
  const auto dilations = infer::SpatialPair(ctx, "dilations");
  const auto pads = infer::Pads(ctx);
  const int64_t groups = infer::Attr<int64_t>(ctx, "groups");
  if (groups < 1) ctx.Fail(fmt::format("attribute 'groups' must be >= 1, got {}", groups));
  const Shape x = infer::WithRank(ctx.input_shape(x_input), 4);
  const Shape w = infer::WithRank(ctx.input_shape(w_input), 4);
  infer::RequireRank(ctx, x, 4, "x");
  infer::RequireRank(ctx, w, 4, "w");
  const int64_t grouped_cin = infer::CheckedDimMul(
      ctx, w.dim(1), groups, fmt::format("channels of w {} times groups {}", w.ToString(), groups));
  if (x.dim(1) >= 0 && grouped_cin >= 0 && grouped_cin != x.dim(1)) {
    ctx.Fail(fmt::format("input channels of x {} do not match w {} with groups {}", x.ToString(), w.ToString(),
                         groups));
  }
  if (w.dim(0) >= 0 && w.dim(0) % groups != 0) {
    ctx.Fail(fmt::format("output channels ({}) are not divisible by groups ({})", w.dim(0), groups));
  }
  std::vector<int64_t> dims = {x.dim(0), w.dim(0), Shape::kUnknownDim, Shape::kUnknownDim};
  for (size_t i = 0; i < 2; ++i) {
    if (w.dim(2 + i) < 0) continue;
    dims[2 + i] = infer::Guarded(ctx, i == 0 ? "output height" : "output width", [&] {
      return ConvOutputDim(x.dim(2 + i), w.dim(2 + i), strides[i], pads[2 * i], pads[2 * i + 1], dilations[i]);
    });
  }
  return Shape(std::move(dims));
}

void InferConvInteger(InferContext& ctx) { ctx.set_output(0, DataType::kInt32, ConvShape(ctx, 0, 1)); }

// Inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, bias.
void InferQLinearConv(InferContext& ctx) {
  const Shape y = ConvShape(ctx, 0, 3);
  CheckPerTensorParams(ctx, {{1, "x_scale"}, {2, "x_zero_point"}, {6, "y_scale"}, {7, "y_zero_point"}});
  if (!y.unknown_rank()) {
    CheckQuantParam(ctx, 4, Shape({y.dim(1)}), 0, "w_scale");
    CheckQuantParam(ctx, 5, Shape({y.dim(1)}), 0, "w_zero_point");
  }
  ctx.set_output(0, ctx.input_dtype(7), y);
}

OpSchema& ConvAttrs(OpSchema& schema) {
  return schema.Attr("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("pads", std::vector<int64_t>{0, 0, 0, 0})
      .Attr("dilations", std::vector<int64_t>{1, 1, 1, 1})
      .Attr("groups", int64_t{1})
      .Attr("data_format", std::string("NCHW"));
}

}  // namespace

void RegisterQuantOps(OpRegistry& registry) {
  registry.Register(OpSchema("QuantizeLinear")
                        .Input("x", "T1")
                        .Input("y_scale", "TScale")
                        .OptionalInput("y_zero_point", "T2")
                        .Output("y", "T2")
                        .Attr("axis", int64_t{1})
                        .TypeConstraint("T1", {DataType::kFloat, DataType::kInt32})
                        .TypeConstraint("TScale", {DataType::kFloat})
                        .TypeConstraint("T2", QuantTypes())
                        .Infer(InferQuantizeLinear)
                        .Doc("ONNX QuantizeLinear: round half to even, saturate; per tensor or per axis."));
  registry.Register(OpSchema("DynamicQuantizeLinear")
                        .Input("x", "T1")
                        .Output("y", "T2")
                        .Output("y_scale", "T1")
                        .Output("y_zero_point", "T2")
                        .TypeConstraint("T1", {DataType::kFloat})
                        .TypeConstraint("T2", {DataType::kUInt8})
                        .Infer(InferDynamicQuantizeLinear)
                        .Doc("ONNX DynamicQuantizeLinear: uint8 quantization over the range of x and 0."));
  registry.Register(OpSchema("DequantizeLinear")
                        .Input("x", "T")
                        .Input("x_scale", "TScale")
                        .OptionalInput("x_zero_point", "T")
                        .Output("y", "TScale")
                        .Attr("axis", int64_t{1})
                        .TypeConstraint("T", {DataType::kInt8, DataType::kUInt8, DataType::kInt32})
                        .TypeConstraint("TScale", {DataType::kFloat})
                        .Infer(InferDequantizeLinear)
                        .Doc("ONNX DequantizeLinear: (x - zero_point) * scale; per tensor or per axis."));
  registry.Register(OpSchema("MatMulInteger")
                        .Input("a", "T1")
                        .Input("b", "T2")
                        .OptionalInput("a_zero_point", "T1")
                        .OptionalInput("b_zero_point", "T2")
                        .Output("y", "T3")
                        .TypeConstraint("T1", QuantTypes())
                        .TypeConstraint("T2", QuantTypes())
                        .TypeConstraint("T3", {DataType::kInt32})
                        .Infer(InferMatMulInteger)
                        .Doc("numpy matmul of zero-point-shifted 8-bit operands with int32 accumulation."));
  registry.Register(OpSchema("QLinearMatMul")
                        .Input("a", "T1")
                        .Input("a_scale", "TScale")
                        .Input("a_zero_point", "T1")
                        .Input("b", "T2")
                        .Input("b_scale", "TScale")
                        .Input("b_zero_point", "T2")
                        .Input("y_scale", "TScale")
                        .Input("y_zero_point", "T3")
                        .Output("y", "T3")
                        .TypeConstraint("T1", QuantTypes())
                        .TypeConstraint("T2", QuantTypes())
                        .TypeConstraint("T3", QuantTypes())
                        .TypeConstraint("TScale", {DataType::kFloat})
                        .Infer(InferQLinearMatMul)
                        .Doc("MatMulInteger requantized to y_scale/y_zero_point."));
  registry.Register(ConvAttrs(OpSchema("ConvInteger")
                                  .Input("x", "T1")
                                  .Input("w", "T2")
                                  .OptionalInput("x_zero_point", "T1")
                                  .OptionalInput("w_zero_point", "T2")
                                  .Output("y", "T3")
                                  .TypeConstraint("T1", QuantTypes())
                                  .TypeConstraint("T2", QuantTypes())
                                  .TypeConstraint("T3", {DataType::kInt32}))
                        .Infer(InferConvInteger)
                        .Doc("2-D NCHW convolution of zero-point-shifted 8-bit operands, int32 accumulation."));
  registry.Register(ConvAttrs(OpSchema("QLinearConv")
                                  .Input("x", "T1")
                                  .Input("x_scale", "TScale")
                                  .Input("x_zero_point", "T1")
                                  .Input("w", "T2")
                                  .Input("w_scale", "TScale")
                                  .Input("w_zero_point", "T2")
                                  .Input("y_scale", "TScale")
                                  .Input("y_zero_point", "T3")
                                  .OptionalInput("bias", "T4")
                                  .Output("y", "T3")
                                  .TypeConstraint("T1", QuantTypes())
                                  .TypeConstraint("T2", QuantTypes())
                                  .TypeConstraint("T3", QuantTypes())
                                  .TypeConstraint("T4", {DataType::kInt32})
                                  .TypeConstraint("TScale", {DataType::kFloat}))
                        .Infer(InferQLinearConv)
                        .Doc("ConvInteger plus int32 bias, requantized to y_scale/y_zero_point (per-channel w)."));
}

}  // namespace ge
