#include <catch2/catch.hpp>

#include "passes/builtin_passes.h"

namespace ge {

TEST_CASE("dead_code_elimination removes a branch no output depends on") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Value* unused_input = graph.AddInput("unused", DataType::kFloat, Shape{4});
  Node* relu = graph.AddNode("Relu", "relu", {x});
  Node* sigmoid = graph.AddNode("Sigmoid", "sigmoid", {x});
  graph.AddNode("Tanh", "tanh", {sigmoid->output(0)});
  graph.AddConstant("orphan", Tensor(DataType::kFloat, Shape{4}));
  graph.SetOutputs({relu->output(0)});

  PassContext ctx;
  auto pass = passes::MakeDeadCodeEliminationPass();
  CHECK(pass->Run(graph, ctx));
  CHECK(graph.FindNode("sigmoid") == nullptr);
  CHECK(graph.FindNode("tanh") == nullptr);
  CHECK(graph.FindNode("orphan") == nullptr);
  CHECK(graph.FindNode("relu") != nullptr);
  CHECK(graph.inputs() == std::vector<Value*>{x, unused_input});  // graph inputs are part of the signature
  CHECK(x->uses().size() == 1);
  CHECK_FALSE(pass->Run(graph, ctx));
}

}  // namespace ge
