// Elementwise ops: unary math, broadcasting binary arithmetic, ClipByValue, Cast.
#include <fmt/format.h>

#include <algorithm>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

void InferSameAsInput(InferContext& ctx) { ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0)); }

void InferBroadcastBinary(InferContext& ctx) {
  ctx.set_output(0, ctx.input_dtype(0), infer::Broadcast(ctx, ctx.input_shape(0), ctx.input_shape(1)));
}

void InferClipByValue(InferContext& ctx) {
  for (size_t i : {1, 2}) {
    const Shape& bound = ctx.input_shape(i);
    const int64_t count = bound.NumElements();
    if (!bound.unknown_rank() && count != Shape::kUnknownDim && count != 1) {
      ctx.Fail(fmt::format("input {} ({}) must be a scalar, got shape {}", i,
                           i == 1 ? "clip_value_min" : "clip_value_max", bound.ToString()));
    }
  }
  InferSameAsInput(ctx);
}

void InferCast(InferContext& ctx) {
  const int64_t dst = infer::Attr<int64_t>(ctx, "dst_type");
  const auto& valid = types::All();
  const auto dtype = static_cast<DataType>(dst);
  if (std::find(valid.begin(), valid.end(), dtype) == valid.end()) {
    std::vector<std::string> choices;
    for (DataType t : valid) choices.push_back(fmt::format("{} ({})", static_cast<int>(t), DataTypeName(t)));
    ctx.Fail(fmt::format("attribute 'dst_type' = {} is not a supported DataType value (valid: {})", dst,
                         fmt::join(choices, ", ")));
  }
  ctx.set_output(0, dtype, ctx.input_shape(0));
}

void RegisterUnary(OpRegistry& registry, const char* op_type, const char* doc) {
  registry.Register(
      OpSchema(op_type).Input("x").Output("y").TypeConstraint("T", types::Float()).Infer(InferSameAsInput).Doc(doc));
}

void RegisterBinary(OpRegistry& registry, const char* op_type, const char* doc) {
  registry.Register(OpSchema(op_type)
                        .Input("x1")
                        .Input("x2")
                        .Output("y")
                        .TypeConstraint("T", types::Numeric())
                        .Infer(InferBroadcastBinary)
                        .Doc(doc));
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  RegisterUnary(registry, "Relu", "max(x, 0)");
  RegisterUnary(registry, "Sigmoid", "1 / (1 + exp(-x))");
  RegisterUnary(registry, "Tanh", "tanh(x)");
  RegisterUnary(registry, "Erf", "erf(x)");
  RegisterUnary(registry, "Sqrt", "sqrt(x)");
  RegisterUnary(registry, "Exp", "exp(x)");
  RegisterUnary(registry, "Log", "natural logarithm of x");
  RegisterUnary(registry, "Abs", "|x|");
  RegisterUnary(registry, "Neg", "-x");
  RegisterUnary(registry, "Reciprocal", "1 / x");
  RegisterUnary(registry, "Gelu", "x * (1 + erf(x / sqrt(2))) / 2 (the erf form)");

  RegisterBinary(registry, "Add", "x1 + x2 with numpy broadcasting");
  RegisterBinary(registry, "Sub", "x1 - x2 with numpy broadcasting");
  RegisterBinary(registry, "Mul", "x1 * x2 with numpy broadcasting");
  RegisterBinary(registry, "Div", "x1 / x2 with numpy broadcasting; integer division truncates");
  RegisterBinary(registry, "Pow", "x1 ** x2 with numpy broadcasting");
  RegisterBinary(registry, "Maximum", "max(x1, x2) with numpy broadcasting");
  RegisterBinary(registry, "Minimum", "min(x1, x2) with numpy broadcasting");

  registry.Register(OpSchema("ClipByValue")
                        .Input("x")
                        .Input("clip_value_min")
                        .Input("clip_value_max")
                        .Output("y")
                        .TypeConstraint("T", types::Numeric())
                        .Infer(InferClipByValue)
                        .Doc("min(max(x, clip_value_min), clip_value_max); the bounds are scalars."));
  registry.Register(OpSchema("Cast")
                        .Input("x", "T1")
                        .Output("y", "T2")
                        .RequiredAttr("dst_type", AttrType::kInt)
                        .TypeConstraint("T1", types::All())
                        .TypeConstraint("T2", types::All())
                        .Infer(InferCast)
                        .Doc("Converts to DataType dst_type: float to int truncates toward zero, to bool is x != 0."));
}

}  // namespace ge
