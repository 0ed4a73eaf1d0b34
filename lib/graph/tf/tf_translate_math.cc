// Elementwise ops and activations, products (MatMul, BatchMatMulV2 and
// grappler's _FusedMatMul with BiasAdd and an activation), Mean and Softmax.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

TfTranslator Unary(const std::string& ge_op) {
  return [ge_op](TfNodeContext& ctx) { return std::vector<Value*>{ctx.Op(ge_op, {ctx.input(0)}, {}, ctx.node().name())}; };
}

TfTranslator Binary(const std::string& ge_op) {
  return [ge_op](TfNodeContext& ctx) {
    return std::vector<Value*>{ctx.Op(ge_op, {ctx.input(0), ctx.input(1)}, {}, ctx.node().name())};
  };
}

std::vector<Value*> AddN(TfNodeContext& ctx) {
  if (ctx.num_inputs() == 0) ctx.Fail("AddN needs at least one input");
  Value* sum = ctx.input(0);
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    const bool last = i + 1 == ctx.num_inputs();
    sum = ctx.Op("Add", {sum, ctx.input(i)}, {}, last ? ctx.node().name() : ctx.Name(fmt::format("add_{}", i)));
  }
  if (ctx.num_inputs() == 1) sum = ctx.Op("Identity", {sum}, {}, ctx.node().name());
  return {sum};
}

std::vector<Value*> SquaredDifference(TfNodeContext& ctx) {
  Value* difference = ctx.Op("Sub", {ctx.input(0), ctx.input(1)}, {}, ctx.Name("difference"));
  return {ctx.Op("Mul", {difference, difference}, {}, ctx.node().name())};
}

// Floor division: of floats floor(x / y); of integers (x - x mod y) / y, exact.
std::vector<Value*> FloorDiv(TfNodeContext& ctx) {
  Value* x = ctx.input(0);
  Value* y = ctx.input(1);
  const bool floating = x->dtype() == DataType::kFloat || x->dtype() == DataType::kDouble ||
                        x->dtype() == DataType::kFloat16 || x->dtype() == DataType::kBFloat16;
  if (floating) return {ctx.Op("Floor", {ctx.Op("Div", {x, y}, {}, ctx.Name("div"))}, {}, ctx.node().name())};
  Value* remainder = ctx.Op("FloorMod", {x, y}, {}, ctx.Name("mod"));
  Value* multiple = ctx.Op("Sub", {x, remainder}, {}, ctx.Name("multiple"));
  return {ctx.Op("Div", {multiple, y}, {}, ctx.node().name())};
}

std::vector<Value*> MatMul(TfNodeContext& ctx, bool fused) {
  if (ctx.Bool("adjoint_a", false) || ctx.Bool("adjoint_b", false)) ctx.Fail("adjoint is not supported", true);
  const std::vector<std::string> fused_ops = fused ? ctx.Strings("fused_ops") : std::vector<std::string>{};
  if (fused && (fused_ops.empty() || fused_ops[0] != "BiasAdd" || fused_ops.size() > 2)) {
    ctx.Fail(fmt::format("fused_ops [{}] are not supported (supported: BiasAdd, then one activation)",
                         fmt::join(fused_ops, ", ")), /*unsupported=*/true);
  }
  std::vector<Value*> inputs = {ctx.input(0), ctx.input(1)};
  if (fused) inputs.push_back(ctx.input(2));
  const bool activation = fused_ops.size() == 2;
  Value* y = ctx.Op("MatMulV2", inputs,
                    {{"transpose_x1", ctx.Bool("transpose_a", false)}, {"transpose_x2", ctx.Bool("transpose_b", false)}},
                    activation ? ctx.Name("matmul") : ctx.node().name());
  if (!activation) return {y};
  return {FusedActivation(ctx, fused_ops[1], y, fused_ops[1] == "Prelu" ? ctx.input(3) : nullptr)};
}

// BatchMatMulV2 broadcasts the batch dims as numpy's matmul, which is ge's
// BatchMatMulV2; BatchMatMul (v1) is the same with equal batch dims.
std::vector<Value*> BatchMatMul(TfNodeContext& ctx) {
  return {ctx.Op("BatchMatMulV2", {ctx.input(0), ctx.input(1)},
                 {{"adj_x1", ctx.Bool("adj_x", false)}, {"adj_x2", ctx.Bool("adj_y", false)}}, ctx.node().name())};
}

std::vector<Value*> Mean(TfNodeContext& ctx) {
  std::vector<int64_t> axes = ctx.ConstantInts(1, "reduction_indices");
  return {ctx.Op("ReduceMeanD", {ctx.input(0)}, {{"axes", axes}, {"keep_dims", ctx.Bool("keep_dims", false)}},
                 ctx.node().name())};
}

std::vector<Value*> Softmax(TfNodeContext& ctx) {
  return {ctx.Op("SoftmaxV2", {ctx.input(0)}, {{"axes", std::vector<int64_t>{-1}}}, ctx.node().name())};
}

std::vector<Value*> Relu6(TfNodeContext& ctx) { return {FusedActivation(ctx, "Relu6", ctx.input(0), nullptr)}; }

std::vector<Value*> Prelu(TfNodeContext& ctx) { return {FusedActivation(ctx, "Prelu", ctx.input(0), ctx.input(1))}; }

}  // namespace

void AddMathTranslators(TfTranslators& table) {
  for (const char* op : {"Relu", "Sigmoid", "Tanh", "Elu", "Exp", "Sqrt", "Neg", "Abs", "Floor", "Reciprocal"}) {
    table[op] = Unary(op);
  }
  table["Relu6"] = Relu6;
  table["Prelu"] = Prelu;
  for (const char* op : {"AddV2", "Add", "BiasAdd"}) table[op] = Binary("Add");
  table["Sub"] = Binary("Sub");
  table["Mul"] = Binary("Mul");
  table["RealDiv"] = Binary("Div");
  table["Minimum"] = Binary("Minimum");
  table["Maximum"] = Binary("Maximum");
  table["AddN"] = AddN;
  table["FloorDiv"] = FloorDiv;
  table["FloorMod"] = Binary("FloorMod");
  table["SquaredDifference"] = SquaredDifference;
  table["MatMul"] = [](TfNodeContext& ctx) { return MatMul(ctx, false); };
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) table[op] = BatchMatMul;
  table["_FusedMatMul"] = [](TfNodeContext& ctx) { return MatMul(ctx, true); };
  table["Mean"] = Mean;
  table["Softmax"] = Softmax;
}

}  // namespace ge::tf_import
