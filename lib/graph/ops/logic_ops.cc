// Comparisons (bool output), logical and bitwise ops, the IsNan/IsInf
// predicates and Select (ONNX Where).
#include "graph/ops/elementwise_infer.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

const std::vector<DataType> kBool = {DataType::kBool};

void InferComparison(InferContext& ctx) {
  ctx.set_output(0, DataType::kBool, infer::Broadcast(ctx, ctx.input_shape(0), ctx.input_shape(1)));
}

void InferPredicate(InferContext& ctx) { ctx.set_output(0, DataType::kBool, ctx.input_shape(0)); }

void InferSelect(InferContext& ctx) {
  const Shape xs = infer::Broadcast(ctx, ctx.input_shape(1), ctx.input_shape(2));
  ctx.set_output(0, ctx.input_dtype(1), infer::Broadcast(ctx, ctx.input_shape(0), xs));
}

void RegisterComparison(OpRegistry& registry, const char* op_type, const std::vector<DataType>& dtypes,
                        const char* doc) {
  registry.Register(OpSchema(op_type)
                        .Input("x1")
                        .Input("x2")
                        .Output("y", "TOut")
                        .TypeConstraint("T", dtypes)
                        .TypeConstraint("TOut", kBool)
                        .Infer(InferComparison)
                        .InferSymbolic(symbolic::Broadcast)
                        .Doc(doc));
}

}  // namespace

void RegisterLogicOps(OpRegistry& registry) {
  RegisterComparison(registry, "Equal", types::All(), "x1 == x2 with numpy broadcasting (bool output)");
  RegisterComparison(registry, "Greater", types::Numeric(), "x1 > x2 with numpy broadcasting (bool output)");
  RegisterComparison(registry, "Less", types::Numeric(), "x1 < x2 with numpy broadcasting (bool output)");
  RegisterComparison(registry, "GreaterEqual", types::Numeric(), "x1 >= x2 with numpy broadcasting (bool output)");
  RegisterComparison(registry, "LessEqual", types::Numeric(), "x1 <= x2 with numpy broadcasting (bool output)");

  RegisterBinaryOp(registry, "LogicalAnd", kBool, "x1 && x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "LogicalOr", kBool, "x1 || x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "LogicalXor", kBool, "x1 != x2 with numpy broadcasting");
  RegisterUnaryOp(registry, "LogicalNot", kBool, "!x");

  const auto& ints = types::Integer();
  RegisterBinaryOp(registry, "BitwiseAnd", ints, "x1 & x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "BitwiseOr", ints, "x1 | x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "BitwiseXor", ints, "x1 ^ x2 with numpy broadcasting");
  RegisterBinaryOp(registry, "LeftShift", ints, "x1 << x2; shifts of the bit width or more give 0");
  RegisterBinaryOp(registry, "RightShift", ints, "x1 >> x2 (arithmetic for signed types)");
  RegisterUnaryOp(registry, "Invert", ints, "~x (bitwise not)");

  registry.Register(OpSchema("IsNan")
                        .Input("x")
                        .Output("y", "TOut")
                        .TypeConstraint("T", types::Float())
                        .TypeConstraint("TOut", kBool)
                        .Infer(InferPredicate)
                        .InferSymbolic(symbolic::SameAsInput)
                        .Doc("x is NaN"));
  registry.Register(OpSchema("IsInf")
                        .Input("x")
                        .Output("y", "TOut")
                        .Attr("detect_negative", int64_t{1})
                        .Attr("detect_positive", int64_t{1})
                        .TypeConstraint("T", types::Float())
                        .TypeConstraint("TOut", kBool)
                        .Infer(InferPredicate)
                        .InferSymbolic(symbolic::SameAsInput)
                        .Doc("x is an infinity of a detected sign"));
  registry.Register(OpSchema("Select")
                        .Input("condition", "TCond")
                        .Input("x1")
                        .Input("x2")
                        .Output("y")
                        .TypeConstraint("TCond", kBool)
                        .TypeConstraint("T", types::All())
                        .Infer(InferSelect)
                        .InferSymbolic(symbolic::Broadcast)
                        .Doc("condition ? x1 : x2 with three-way numpy broadcasting (ONNX Where)"));
}

}  // namespace ge
