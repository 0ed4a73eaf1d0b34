#include <catch2/catch.hpp>

#include <algorithm>

#include "fake_evaluator.h"
#include "passes/pass.h"

namespace ge {

TEST_CASE("The built-in pipeline removes identities, folds constants and dead code, keeping output names") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{2, 3});
  Node* identity = graph.AddNode("Identity", "id", {x});
  Node* relu = graph.AddNode("Relu", "y", {identity->output(0)});
  Value* big = graph.AddConstant("big", Tensor(DataType::kFloat, Shape{5000}));
  Node* sum = graph.AddNode("Add", "s", {big, big});
  graph.AddNode("Sigmoid", "unused", {x});
  graph.SetOutputs({relu->output(0), sum->output(0)});

  test::FakeEvaluator evaluator;
  PassContext ctx;
  ctx.evaluator = &evaluator;
  std::vector<PassTiming> timings = PassManager::WithBuiltinPasses().Run(graph, ctx, {});
  CHECK(timings.size() == PassManager::WithBuiltinPasses().PassNames().size());  // every pass ran

  std::vector<std::string> op_types;
  for (const Node* node : graph.TopologicalOrder()) op_types.push_back(node->op_type());
  std::sort(op_types.begin(), op_types.end());
  CHECK(op_types == std::vector<std::string>{"Const", "Data", "Relu"});
  CHECK(relu->input(0) == x);
  REQUIRE(graph.outputs().size() == 2);
  CHECK(graph.outputs()[0]->name() == "y");
  CHECK(graph.outputs()[0]->shape() == Shape{2, 3});
  CHECK(graph.outputs()[1]->name() == "s");
  REQUIRE(graph.outputs()[1]->constant() != nullptr);
  CHECK(graph.outputs()[1]->constant()->shape() == Shape{5000});
}

}  // namespace ge
