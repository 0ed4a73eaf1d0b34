#include <catch2/catch.hpp>

#include "fake_evaluator.h"
#include "ge/error.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

// The reshape-target computation PyTorch exports for x.view(x.size(0), -1):
// Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])).
struct ReshapeChain {
  Graph graph;
  Node* reshape;
};

ReshapeChain MakeReshapeChain(Shape input_shape) {
  ReshapeChain g;
  Graph& graph = g.graph;
  Value* x = graph.AddInput("x", DataType::kFloat, std::move(input_shape));
  Node* shape = graph.AddNode("Shape", "shape", {x});
  Value* zero = graph.AddConstant("zero", test::Int64Scalar(0));
  Node* gather = graph.AddNode("GatherV2D", "gather", {shape->output(0), zero});
  Node* unsqueeze = graph.AddNode("Unsqueeze", "unsqueeze", {gather->output(0)});
  unsqueeze->attrs().Set("axes", std::vector<int64_t>{0});
  Node* concat = graph.AddNode("ConcatD", "concat",
                               {unsqueeze->output(0), graph.AddConstant("minus_one", test::Int64Tensor({-1}))});
  concat->attrs().Set("concat_dim", int64_t{0});
  concat->attrs().Set("N", int64_t{2});
  g.reshape = graph.AddNode("Reshape", "reshape", {x, concat->output(0)});
  graph.SetOutputs({g.reshape->output(0), concat->output(0)});
  return g;
}

bool RunInferShape(Graph& graph, ConstantEvaluator* evaluator) {
  PassContext ctx;
  ctx.evaluator = evaluator;
  return passes::MakeInferShapePass()->Run(graph, ctx);
}

}  // namespace

TEST_CASE("infer_shape folds a Shape->Gather->Unsqueeze->Concat chain so Reshape gets a static shape") {
  ReshapeChain g = MakeReshapeChain(Shape{2, 3, 4});
  test::FakeEvaluator evaluator;
  CHECK(RunInferShape(g.graph, &evaluator));

  CHECK(g.reshape->output(0)->dtype() == DataType::kFloat);
  CHECK(g.reshape->output(0)->shape() == Shape{2, 12});
  for (const char* folded : {"shape", "gather", "unsqueeze", "concat"}) CHECK(g.graph.FindNode(folded) == nullptr);
  CHECK(evaluator.calls == std::map<std::string, int>{{"ConcatD", 1}, {"GatherV2D", 1}, {"Unsqueeze", 1}});

  const Tensor* target = g.reshape->input(1)->constant();
  REQUIRE(target != nullptr);
  CHECK(target->ToInt64Vector() == std::vector<int64_t>{2, -1});
  // The folded Concat is also a graph output: it keeps its name.
  CHECK(g.graph.outputs()[1] == g.reshape->input(1));
  CHECK(g.graph.outputs()[1]->name() == "concat");
}

TEST_CASE("infer_shape folds a static Shape without an evaluator, and nothing else") {
  ReshapeChain g = MakeReshapeChain(Shape{2, 3, 4});
  CHECK(RunInferShape(g.graph, nullptr));
  CHECK(g.graph.FindNode("shape") == nullptr);
  Node* gather = g.graph.FindNode("gather");
  REQUIRE(gather != nullptr);
  const Tensor* shape = gather->input(0)->constant();
  REQUIRE(shape != nullptr);
  CHECK(shape->dtype() == DataType::kInt64);
  CHECK(shape->ToInt64Vector() == std::vector<int64_t>{2, 3, 4});
  CHECK(g.graph.FindNode("concat") != nullptr);
  CHECK_FALSE(g.reshape->output(0)->shape().IsStatic());
}

TEST_CASE("infer_shape keeps Shape of a dynamic tensor") {
  ReshapeChain g = MakeReshapeChain(Shape{Shape::kUnknownDim, 3, 4});
  test::FakeEvaluator evaluator;
  RunInferShape(g.graph, &evaluator);
  CHECK(g.graph.FindNode("shape") != nullptr);
  CHECK(evaluator.calls.empty());
  CHECK_FALSE(g.reshape->output(0)->shape().IsStatic());
}

TEST_CASE("infer_shape leaves large constant computations to constant_folding") {
  Graph graph;
  Value* a = graph.AddConstant("a", Tensor(DataType::kFloat, Shape{5000}));
  Node* add = graph.AddNode("Add", "add", {a, a});
  graph.SetOutputs({add->output(0)});
  test::FakeEvaluator evaluator;
  CHECK(RunInferShape(graph, &evaluator));
  CHECK(add->output(0)->shape() == Shape{5000});
  CHECK(graph.FindNode("add") != nullptr);
  CHECK(evaluator.calls.empty());
}

TEST_CASE("infer_shape reports an unknown op naming the node") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{2});
  Node* node = graph.AddNode("NoSuchOp", "mystery", {x});
  graph.SetOutputs({node->output(0)});
  try {
    RunInferShape(graph, nullptr);
    FAIL("expected ge::Error");
  } catch (const Error& error) {
    CHECK(error.code() == ErrorCode::kUnsupported);
    CHECK_THAT(error.what(), Catch::Contains("node 'mystery' (NoSuchOp)"));
  }
}

}  // namespace ge
