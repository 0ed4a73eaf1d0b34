// FFN: CANN's mixture-of-experts feed-forward block. The rows of x come
// grouped by expert (expert_tokens[e] rows for expert e); each group runs
// y_e = act(x_e @ W1_e + b1_e) @ W2_e + b2_e with float weights, or int8
// weights dequantized per output column (antiquant_scale/offset, the
// weight-only form). The fully quantized form (scale, offset, deq_scale*) is
// not supported.
#include <fmt/core.h>

#include "graph/ops/ffn_inputs.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

using namespace ffn;  // the input positions

// A weight [E, rows, cols] or [rows, cols]; returns its expert count (1 for
// 2-D) and checks rows against `rows` (the contracted dim).
int64_t CheckWeight(InferContext& ctx, size_t input, const char* name, int64_t rows, int64_t* cols) {
  const Shape& w = ctx.input_shape(input);
  if (w.unknown_rank()) {
    *cols = Shape::kUnknownDim;
    return Shape::kUnknownDim;
  }
  if (w.rank() != 2 && w.rank() != 3) {
    ctx.Fail(fmt::format("input '{}' must be [E, K, N] or [K, N], got {}", name, w.ToString()));
  }
  infer::MergeDim(ctx, w.dim(w.rank() - 2), rows, fmt::format("contracted dim of '{}' {}", name, w.ToString()));
  *cols = w.dim(w.rank() - 1);
  return w.rank() == 3 ? w.dim(0) : 1;
}

// A per-expert, per-column parameter: [E, N] for 3-D weights, [N] for 2-D.
void CheckColumnParam(InferContext& ctx, size_t input, const char* name, size_t weight_input, int64_t experts,
                      int64_t cols) {
  if (!ctx.has_input(input) || ctx.input_shape(input).unknown_rank()) return;
  const Shape& param = ctx.input_shape(input);
  const Shape& weight = ctx.input_shape(weight_input);
  const size_t rank = weight.unknown_rank() ? param.rank() : weight.rank() - 1;
  if (param.rank() != rank || (rank != 1 && rank != 2)) {
    ctx.Fail(fmt::format("input '{}' {} must be [E, N] for 3-D weights or [N] for 2-D ones", name, param.ToString()));
  }
  infer::MergeDim(ctx, param.dim(rank - 1), cols, fmt::format("last dim of '{}' and the weight's N", name));
  if (rank == 2) infer::MergeDim(ctx, param.dim(0), experts, fmt::format("experts of '{}' and the weights", name));
}

void InferFfn(InferContext& ctx) {
  static constexpr std::pair<ffn::Input, const char*> kFullQuantization[] = {
      {kScale, "scale"}, {kOffset, "offset"}, {kDeqScale1, "deq_scale1"}, {kDeqScale2, "deq_scale2"}};
  for (const auto& [input, name] : kFullQuantization) {
    if (ctx.has_input(input)) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("{}: input '{}' (full quantization) is not supported; use float weights or int8 "
                              "weights with antiquant_scale1/2",
                              ctx.node().Describe(), name));
    }
  }
  infer::Choice(ctx, "activation", {"fastgelu", "gelu", "relu", "silu"});
  const int64_t inner_precise = infer::Attr<int64_t>(ctx, "inner_precise");
  if (inner_precise != 0 && inner_precise != 1) {
    ctx.Fail(fmt::format("attribute 'inner_precise' is {}; valid: 0, 1", inner_precise));
  }
  const Shape x = infer::WithRank(ctx.input_shape(kX), 2);
  infer::RequireRank(ctx, x, 2, "x ([M, K1])");
  int64_t n1 = 0, n2 = 0;
  const int64_t e1 = CheckWeight(ctx, kWeight1, "weight1", x.dim(1), &n1);
  const int64_t e2 = CheckWeight(ctx, kWeight2, "weight2", n1, &n2);
  const int64_t experts = infer::MergeDim(ctx, e1, e2, "experts of weight1 and weight2");
  if (ctx.input_shape(kWeight1).rank() != ctx.input_shape(kWeight2).rank() &&
      !ctx.input_shape(kWeight1).unknown_rank() && !ctx.input_shape(kWeight2).unknown_rank()) {
    ctx.Fail("weight1 and weight2 must both be 3-D ([E, K, N]) or both 2-D");
  }
  if (ctx.has_input(kExpertTokens)) {
    const Shape& tokens = ctx.input_shape(kExpertTokens);
    infer::RequireRank(ctx, tokens, 1, "expert_tokens");
    if (!tokens.unknown_rank()) infer::MergeDim(ctx, tokens.dim(0), experts, "expert_tokens length and experts");
    if (auto counts = infer::ConstantInts(ctx, kExpertTokens); counts && x.dim(0) != Shape::kUnknownDim) {
      int64_t total = 0;
      for (int64_t c : *counts) {
        if (c < 0) ctx.Fail(fmt::format("expert_tokens has a negative count {}", c));
        total = infer::CheckedDimAdd(ctx, total, c, "the sum of expert_tokens");
      }
      if (total != x.dim(0)) {
        ctx.Fail(fmt::format("expert_tokens sum to {}, but x has M = {} rows", total, x.dim(0)));
      }
    }
  } else if (experts != 1 && experts != Shape::kUnknownDim) {
    ctx.Fail(fmt::format("the weights hold {} experts; expert_tokens must say how many rows each takes", experts));
  }
  const bool int8_weights = ctx.input_dtype(kWeight1) == DataType::kInt8;
  for (size_t weight : {kWeight1, kWeight2}) {
    const DataType dtype = ctx.input_dtype(weight);
    if (dtype != DataType::kInt8 && dtype != ctx.input_dtype(kX)) {
      ctx.Fail(fmt::format("input '{}' is {}; valid: int8 or x's dtype {}", weight == kWeight1 ? "weight1" : "weight2",
                           DataTypeName(dtype), DataTypeName(ctx.input_dtype(kX))));
    }
    if ((dtype == DataType::kInt8) != int8_weights) ctx.Fail("weight1 and weight2 must both be int8 or both float");
  }
  const bool has_antiquant = ctx.has_input(kAntiquantScale1) || ctx.has_input(kAntiquantScale2);
  if (int8_weights && !(ctx.has_input(kAntiquantScale1) && ctx.has_input(kAntiquantScale2))) {
    ctx.Fail("int8 weights need antiquant_scale1 and antiquant_scale2");
  }
  if (!int8_weights && (has_antiquant || ctx.has_input(kAntiquantOffset1) || ctx.has_input(kAntiquantOffset2))) {
    ctx.Fail("antiquant_scale/offset inputs apply to int8 weights only");
  }
  CheckColumnParam(ctx, kBias1, "bias1", kWeight1, experts, n1);
  CheckColumnParam(ctx, kBias2, "bias2", kWeight2, experts, n2);
  CheckColumnParam(ctx, kAntiquantScale1, "antiquant_scale1", kWeight1, experts, n1);
  CheckColumnParam(ctx, kAntiquantScale2, "antiquant_scale2", kWeight2, experts, n2);
  CheckColumnParam(ctx, kAntiquantOffset1, "antiquant_offset1", kWeight1, experts, n1);
  CheckColumnParam(ctx, kAntiquantOffset2, "antiquant_offset2", kWeight2, experts, n2);
  ctx.set_output(0, ctx.input_dtype(kX), Shape({x.dim(0), n2}));
}

}  // namespace

void RegisterFfnOps(OpRegistry& registry) {
  registry.Register(OpSchema("FFN")
                        .Input("x")
                        .Input("weight1", "TWeight")
                        .Input("weight2", "TWeight")
                        .OptionalInput("expert_tokens", "TTokens")
                        .OptionalInput("bias1", "TParam")
                        .OptionalInput("bias2", "TParam")
                        .OptionalInput("scale", "")
                        .OptionalInput("offset", "")
                        .OptionalInput("deq_scale1", "")
                        .OptionalInput("deq_scale2", "")
                        .OptionalInput("antiquant_scale1", "TParam")
                        .OptionalInput("antiquant_scale2", "TParam")
                        .OptionalInput("antiquant_offset1", "TParam")
                        .OptionalInput("antiquant_offset2", "TParam")
                        .Output("y")
                        .Attr("activation", std::string("fastgelu"))
                        .Attr("inner_precise", int64_t{0})
                        .TypeConstraint("T", {DataType::kFloat, DataType::kFloat16})
                        .TypeConstraint("TWeight", {DataType::kFloat, DataType::kFloat16, DataType::kInt8})
                        .TypeConstraint("TTokens", {DataType::kInt64})
                        .TypeConstraint("TParam", {DataType::kFloat})
                        .Infer(InferFfn)
                        .Doc("Mixture-of-experts FFN: rows grouped by expert_tokens, y_e = act(x_e @ W1_e + b1_e) "
                             "@ W2_e + b2_e; activation fastgelu (x / (1 + exp(-1.702 x))), gelu (erf), relu, silu; "
                             "int8 weights with per-column antiquant_scale/offset."));
}

}  // namespace ge
