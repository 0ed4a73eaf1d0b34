// Elementwise ops: unary math, broadcasting binary arithmetic, ClipByValue, Cast.
#include <fmt/format.h>

#include <algorithm>

#include "graph/ops/elementwise_infer.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {

void InferSameAsInput(InferContext& ctx) { ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0)); }

void InferBroadcastBinary(InferContext& ctx) {
  ctx.set_output(0, ctx.input_dtype(0), infer::Broadcast(ctx, ctx.input_shape(0), ctx.input_shape(1)));
}

void RegisterUnaryOp(OpRegistry& registry, const char* op_type, const std::vector<DataType>& dtypes,
                     const char* doc) {
  registry.Register(OpSchema(op_type).Input("x").Output("y").TypeConstraint("T", dtypes).Infer(InferSameAsInput).InferSymbolic(symbolic::SameAsInput).Doc(doc));
}

void RegisterBinaryOp(OpRegistry& registry, const char* op_type, const std::vector<DataType>& dtypes,
                      const char* doc) {
  registry.Register(OpSchema(op_type)
                        .Input("x1")
                        .Input("x2")
                        .Output("y")
                        .TypeConstraint("T", dtypes)
                        .Infer(InferBroadcastBinary)
                        .InferSymbolic(symbolic::Broadcast)
                        .Doc(doc));
}

namespace {

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

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  const auto& floats = types::Float();
  const auto& numeric = types::Numeric();
  RegisterUnaryOp(registry, "Relu", numeric, "max(x, 0)");
  RegisterUnaryOp(registry, "Abs", numeric, "|x|");
  RegisterUnaryOp(registry, "Neg", numeric, "-x");
  RegisterUnaryOp(registry, "Sign", numeric, "-1, 0 or 1 by the sign of x");
  RegisterUnaryOp(registry, "Ceil", floats, "ceil(x)");
  RegisterUnaryOp(registry, "Floor", floats, "floor(x)");
  RegisterUnaryOp(registry, "Round", floats, "x rounded to the nearest integer, halves to even");
  RegisterUnaryOp(registry, "Sigmoid", floats, "1 / (1 + exp(-x))");
  RegisterUnaryOp(registry, "Tanh", floats, "tanh(x)");
  RegisterUnaryOp(registry, "Erf", floats, "erf(x)");
  RegisterUnaryOp(registry, "Sqrt", floats, "sqrt(x)");
  RegisterUnaryOp(registry, "Exp", floats, "exp(x)");
  RegisterUnaryOp(registry, "Log", floats, "natural logarithm of x");
  RegisterUnaryOp(registry, "Reciprocal", floats, "1 / x");
  RegisterUnaryOp(registry, "Sin", floats, "sin(x)");
  RegisterUnaryOp(registry, "Cos", floats, "cos(x)");
  RegisterUnaryOp(registry, "Tan", floats, "tan(x)");
  RegisterUnaryOp(registry, "Asin", floats, "asin(x)");
  RegisterUnaryOp(registry, "Acos", floats, "acos(x)");
  RegisterUnaryOp(registry, "Atan", floats, "atan(x)");
  RegisterUnaryOp(registry, "Sinh", floats, "sinh(x)");
  RegisterUnaryOp(registry, "Cosh", floats, "cosh(x)");
  RegisterUnaryOp(registry, "Asinh", floats, "asinh(x)");
  RegisterUnaryOp(registry, "Acosh", floats, "acosh(x)");
  RegisterUnaryOp(registry, "Atanh", floats, "atanh(x)");
  RegisterUnaryOp(registry, "Gelu", floats, "x * (1 + erf(x / sqrt(2))) / 2 (the erf form)");

  RegisterBinaryOp(registry, "Add", numeric, "x1 + x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "Sub", numeric, "x1 - x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "Mul", numeric, "x1 * x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "Div", numeric, "x1 / x2 with numpy broadcasting; integer division truncates");
  RegisterBinaryOp(registry, "Pow", numeric, "x1 ** x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "Maximum", numeric, "max(x1, x2) with numpy broadcasting");
  RegisterBinaryOp(registry, "Minimum", numeric, "min(x1, x2) with numpy broadcasting");
  RegisterBinaryOp(registry, "Mod", numeric, "truncated remainder (C fmod): the sign of x1; integer x2 != 0");
  RegisterBinaryOp(registry, "FloorMod", numeric, "floored remainder (Python %): the sign of x2; integer x2 != 0");

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
                        .InferSymbolic(symbolic::Cast)
                        .Doc("Converts to DataType dst_type: float to int truncates toward zero, to bool is x != 0."));
}

}  // namespace ge
