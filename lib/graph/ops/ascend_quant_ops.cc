// CANN's quantized deploy ops, as the post-training quantization passes
// (issue 6) emit them: AscendQuant, AscendDequant, AscendRequant,
// AscendAntiQuant and the weight-only WeightQuantBatchMatmulV2. Scales are
// attributes (AscendQuant, AscendAntiQuant: multiplied, not divided) or uint64
// words packing an fp32 scale with a shift and an offset (AscendDequant,
// AscendRequant; docs/op-set.md has the bit layout).
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

const std::vector<DataType>& FloatActivations() {
  static const std::vector<DataType> dtypes = {DataType::kFloat, DataType::kFloat16};
  return dtypes;
}

// An ACL dtype number held by an int attribute, among `valid`.
DataType DtypeAttr(InferContext& ctx, const std::string& attr, const std::vector<DataType>& valid) {
  const int64_t value = infer::Attr<int64_t>(ctx, attr);
  std::vector<std::string> choices;
  for (DataType dtype : valid) {
    if (value == static_cast<int64_t>(dtype)) return dtype;
    choices.push_back(fmt::format("{} ({})", static_cast<int>(dtype), DataTypeName(dtype)));
  }
  ctx.Fail(fmt::format("attribute '{}' is {}; valid: {}", attr, value, fmt::join(choices, ", ")));
}

void RequireFiniteScale(InferContext& ctx) {
  const float scale = infer::Attr<float>(ctx, "scale");
  if (!std::isfinite(scale)) ctx.Fail(fmt::format("attribute 'scale' must be finite, got {}", scale));
}

// y = saturate(rint(x * scale + offset)) in dst_type.
void InferAscendQuant(InferContext& ctx) {
  RequireFiniteScale(ctx);
  infer::Choice(ctx, "round_mode", {"Round"});
  const DataType y = DtypeAttr(ctx, "dst_type", {DataType::kInt8, DataType::kInt16});
  ctx.set_output(0, y, ctx.input_shape(0));
}

// deq_scale/req_scale (input 1) has one word for the tensor or one per entry
// of x's dim channel_axis.
void CheckPackedScale(InferContext& ctx, const char* name) {
  const Shape& x = ctx.input_shape(0);
  const Shape& scale = ctx.input_shape(1);
  if (scale.unknown_rank()) return;
  if (scale.rank() > 1) ctx.Fail(fmt::format("input '{}' must be 1-D ([1] or [C]), got {}", name, scale.ToString()));
  const int64_t count = scale.NumElements();
  if (count == 1 || scale.dim(0) == Shape::kUnknownDim || x.unknown_rank()) return;
  const int64_t axis =
      infer::Axis(ctx, infer::Attr<int64_t>(ctx, "channel_axis"), x.rank(), "attribute 'channel_axis'");
  if (x.dim(axis) != Shape::kUnknownDim && x.dim(axis) != count) {
    ctx.Fail(fmt::format("input '{}' has {} elements; it must have 1 or C = {} (dim {} of x {}, channel_axis)", name,
                         count, x.dim(axis), axis, x.ToString()));
  }
}

void InferAscendDequant(InferContext& ctx) {
  CheckPackedScale(ctx, "deq_scale");
  ctx.set_output(0, DtypeAttr(ctx, "dtype", FloatActivations()), ctx.input_shape(0));
}

void InferAscendRequant(InferContext& ctx) {
  CheckPackedScale(ctx, "req_scale");
  ctx.set_output(0, DataType::kInt8, ctx.input_shape(0));
}

void InferAscendAntiQuant(InferContext& ctx) {
  RequireFiniteScale(ctx);
  ctx.set_output(0, DtypeAttr(ctx, "dtype", FloatActivations()), ctx.input_shape(0));
}

// Inputs x, weight, antiquant_scale, antiquant_offset, quant_scale,
// quant_offset, bias: y [..., M, N] = x @ ((weight + offset) * scale) + bias.
void InferWeightQuantBatchMatmul(InferContext& ctx) {
  for (size_t input : {4, 5}) {
    if (ctx.has_input(input)) {
      ctx.Fail(fmt::format("input '{}' (quantized output) is not supported; leave it absent",
                           input == 4 ? "quant_scale" : "quant_offset"));
    }
  }
  const int64_t group_size = infer::Attr<int64_t>(ctx, "antiquant_group_size");
  if (group_size != 0) {
    ctx.Fail(
        fmt::format("attribute 'antiquant_group_size' is {}; only 0 (per-column scales) is supported", group_size));
  }
  const Shape& x = ctx.input_shape(0);
  const Shape weight = infer::WithRank(ctx.input_shape(1), 2);
  infer::RequireRank(ctx, weight, 2, "weight");
  const bool transpose_weight = infer::Attr<bool>(ctx, "transpose_weight");
  const int64_t n = weight.dim(transpose_weight ? 0 : 1);
  for (size_t input : {2, 3, 6}) {
    if (!ctx.has_input(input)) continue;
    const char* name = input == 2 ? "antiquant_scale" : input == 3 ? "antiquant_offset" : "bias";
    const Shape& param = ctx.input_shape(input);
    if (param.unknown_rank()) continue;
    if (param.rank() != 1) ctx.Fail(fmt::format("input '{}' must be 1-D ([N] or [1]), got {}", name, param.ToString()));
    if (param.dim(0) != 1 || input == 6) infer::MergeDim(ctx, param.dim(0), n, fmt::format("{} length and N", name));
  }
  if (ctx.has_input(3) && !ctx.input_shape(2).unknown_rank() && !ctx.input_shape(3).unknown_rank()) {
    infer::MergeDim(ctx, ctx.input_shape(2).dim(0), ctx.input_shape(3).dim(0),
                    "antiquant_offset length and antiquant_scale length");
  }
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  if (x.rank() < 2) ctx.Fail(fmt::format("x must have rank >= 2 ([..., M, K]), got {}", x.ToString()));
  const bool transpose_x = infer::Attr<bool>(ctx, "transpose_x");
  const size_t rank = x.rank();
  const int64_t m = x.dim(transpose_x ? rank - 1 : rank - 2);
  infer::MergeDim(ctx, x.dim(transpose_x ? rank - 2 : rank - 1), weight.dim(transpose_weight ? 1 : 0),
                  fmt::format("K of x {} and weight {}", x.ToString(), weight.ToString()));
  std::vector<int64_t> dims(x.dims().begin(), x.dims().end() - 2);
  dims.push_back(m);
  dims.push_back(n);
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

}  // namespace

void RegisterAscendQuantOps(OpRegistry& registry) {
  registry.Register(OpSchema("AscendQuant")
                        .Input("x")
                        .Output("y", "TOut")
                        .RequiredAttr("scale", AttrType::kFloat)
                        .Attr("offset", 0.0f)
                        .Attr("sqrt_mode", false)
                        .Attr("round_mode", std::string("Round"))
                        .Attr("dst_type", int64_t{2})
                        .TypeConstraint("T", FloatActivations())
                        .TypeConstraint("TOut", {DataType::kInt8, DataType::kInt16})
                        .Infer(InferAscendQuant)
                        .Doc("y = saturate(round_half_even(x * s + offset)), s = scale (scale^2 with sqrt_mode); "
                             "dst_type 2 (int8) or 6 (int16)."));
  registry.Register(OpSchema("AscendDequant")
                        .Input("x")
                        .Input("deq_scale", "TScale")
                        .Output("y", "TOut")
                        .Attr("sqrt_mode", false)
                        .Attr("relu_flag", false)
                        .Attr("dtype", int64_t{0})
                        .Attr("channel_axis", int64_t{1})
                        .TypeConstraint("T", {DataType::kInt32})
                        .TypeConstraint("TScale", {DataType::kUInt64})
                        .TypeConstraint("TOut", FloatActivations())
                        .Infer(InferAscendDequant)
                        .Doc("int32 -> float with a packed uint64 scale per tensor or per channel_axis entry "
                             "(bits 0-31 fp32 scale, 32-39 shift N)."));
  registry.Register(OpSchema("AscendRequant")
                        .Input("x")
                        .Input("req_scale", "TScale")
                        .Output("y", "TOut")
                        .Attr("relu_flag", false)
                        .Attr("channel_axis", int64_t{1})
                        .TypeConstraint("T", {DataType::kInt32})
                        .TypeConstraint("TScale", {DataType::kUInt64})
                        .TypeConstraint("TOut", {DataType::kInt8})
                        .Infer(InferAscendRequant)
                        .Doc("int32 -> int8 with a packed uint64 scale (bits 0-31 fp32 scale, 32-39 shift N, "
                             "40-48 9-bit offset)."));
  registry.Register(OpSchema("AscendAntiQuant")
                        .Input("x")
                        .Output("y", "TOut")
                        .RequiredAttr("scale", AttrType::kFloat)
                        .Attr("offset", 0.0f)
                        .Attr("sqrt_mode", false)
                        .Attr("dtype", int64_t{0})
                        .TypeConstraint("T", {DataType::kInt8, DataType::kInt16})
                        .TypeConstraint("TOut", FloatActivations())
                        .Infer(InferAscendAntiQuant)
                        .Doc("y = (x + offset) * s, s = scale (scale^2 with sqrt_mode)."));
  registry.Register(OpSchema("WeightQuantBatchMatmulV2")
                        .Input("x")
                        .Input("weight", "TWeight")
                        .Input("antiquant_scale", "TParam")
                        .OptionalInput("antiquant_offset", "TParam")
                        .OptionalInput("quant_scale", "")
                        .OptionalInput("quant_offset", "")
                        .OptionalInput("bias", "TParam")
                        .Output("y")
                        .Attr("transpose_x", false)
                        .Attr("transpose_weight", false)
                        .Attr("antiquant_group_size", int64_t{0})
                        .TypeConstraint("T", FloatActivations())
                        .TypeConstraint("TWeight", {DataType::kInt8})
                        .TypeConstraint("TParam", {DataType::kFloat})
                        .Infer(InferWeightQuantBatchMatmul)
                        .Doc("Weight-only int8 matmul: y = x @ ((weight + antiquant_offset) * antiquant_scale) + "
                             "bias, per output column."));
}

}  // namespace ge
