// transpose_matmul_fusion on graph structure: a TransposeD swapping the last
// two axes of a product's operand becomes the product's transpose flag, with
// unknown dims too; any other transpose stays. The numbers are checked in
// tests/e2e/transpose_matmul_fusion_run_test.cc and, on a dynamic model, by
// tests/runtime/dynamic_kv_cache_test.cc.
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

size_t CountOpType(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

bool InferAndFuse(Graph& graph) {
  PassContext ctx;
  passes::MakeInferShapePass()->Run(graph, ctx);
  return passes::MakeTransposeMatMulFusionPass()->Run(graph, ctx);
}

}  // namespace

TEST_CASE("transpose_matmul_fusion folds a swap of the last two axes into the product's flag") {
  const int64_t u = Shape::kUnknownDim;
  const bool transpose_x1 = GENERATE(false, true);
  CAPTURE(transpose_x1);
  GraphBuilder b("attention_scores");
  Value* q = b.Input("q", DataType::kFloat, {2, u, 8});
  Value* k = b.Input("k", DataType::kFloat, {2, u, 8});
  Value* q_operand = transpose_x1 ? b.Transpose(q, {0, 2, 1}, "q_t") : q;
  Value* scores = b.BatchMatMul(q_operand, b.Transpose(k, {0, 2, 1}, "k_t"), transpose_x1, false, "scores");
  b.Output(scores);
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(InferAndFuse(*graph));
  CHECK(CountOpType(*graph, "TransposeD") == 0);
  const Node* product = scores->producer();
  CHECK(product->input(0) == q);  // a transposed transpose is the operand itself, flag off again
  CHECK(product->input(1) == k);
  CHECK(product->attrs().GetBool("adj_x1") == false);
  CHECK(product->attrs().GetBool("adj_x2") == true);
}

TEST_CASE("transpose_matmul_fusion sets transpose_x2 on a MatMulV2") {
  GraphBuilder b("linear");
  Value* x = b.Input("x", DataType::kFloat, {3, 4});
  Value* w = b.Input("w", DataType::kFloat, {5, 4});
  Value* y = b.MatMul(x, b.Transpose(w, {1, 0}, "w_t"), nullptr, false, false, "y");
  b.Output(y);
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(InferAndFuse(*graph));
  CHECK(y->producer()->input(1) == w);
  CHECK(y->producer()->attrs().GetBool("transpose_x2"));
}

TEST_CASE("transpose_matmul_fusion leaves other transposes") {
  GraphBuilder b("not_fused");
  Value* q = b.Input("q", DataType::kFloat, {2, 3, 8});
  Value* k = b.Input("k", DataType::kFloat, {8, 3, 2});
  std::vector<int64_t> perm = {2, 1, 0};  // reverses the axes: not a matrix transpose
  Value* k_t = b.Transpose(k, perm, "k_t");
  std::vector<Value*> outputs = {b.BatchMatMul(q, k_t, false, true, "scores")};
  SECTION("a permutation that moves a batch axis") {}
  SECTION("a transpose read elsewhere too") {
    Value* k2 = b.Input("k2", DataType::kFloat, {2, 8, 3});
    Value* k2_t = b.Transpose(k2, {0, 2, 1}, "k2_t");
    outputs = {b.BatchMatMul(q, k2_t, false, true, "scores2"), b.Relu(k2_t, "reader")};
  }
  SECTION("a transpose that is a graph output") {
    Value* k2 = b.Input("k2", DataType::kFloat, {2, 8, 3});
    Value* k2_t = b.Transpose(k2, {0, 2, 1}, "k2_t");
    outputs = {b.BatchMatMul(q, k2_t, false, true, "scores2"), k2_t};
  }
  b.Outputs(outputs);
  std::unique_ptr<Graph> graph = b.Build();
  const size_t transposes = CountOpType(*graph, "TransposeD");
  InferAndFuse(*graph);
  CHECK(CountOpType(*graph, "TransposeD") == transposes);
}

}  // namespace ge
