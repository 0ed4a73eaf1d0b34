#include <catch2/catch.hpp>

#include "passes/builtin_passes.h"

namespace ge {
namespace {

bool RunIdentityRemoval(Graph& graph) {
  PassContext ctx;
  return passes::MakeIdentityRemovalPass()->Run(graph, ctx);
}

size_t CountOps(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

}  // namespace

TEST_CASE("identity_removal bypasses an inner Identity") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Node* identity = graph.AddNode("Identity", "id", {x});
  Node* relu = graph.AddNode("Relu", "relu", {identity->output(0)});
  graph.SetOutputs({relu->output(0)});

  CHECK(RunIdentityRemoval(graph));
  CHECK(CountOps(graph, "Identity") == 0);
  CHECK(relu->input(0) == x);
  CHECK(x->uses().size() == 1);
  CHECK_FALSE(RunIdentityRemoval(graph));
}

TEST_CASE("identity_removal moves the output name onto the bypassed value") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Node* relu = graph.AddNode("Relu", "relu", {x});
  Node* first = graph.AddNode("Identity", "first", {relu->output(0)});
  Node* second = graph.AddNode("Identity", "out", {first->output(0)});
  graph.SetOutputs({second->output(0)});

  CHECK(RunIdentityRemoval(graph));
  CHECK(CountOps(graph, "Identity") == 0);
  REQUIRE(graph.outputs().size() == 1);
  CHECK(graph.outputs()[0] == relu->output(0));
  CHECK(graph.outputs()[0]->name() == "out");
}

TEST_CASE("identity_removal keeps an Identity from a graph input to a graph output") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Node* identity = graph.AddNode("Identity", "y", {x});
  graph.SetOutputs({identity->output(0)});

  CHECK_FALSE(RunIdentityRemoval(graph));
  CHECK(graph.outputs()[0]->name() == "y");
  CHECK(x->name() == "x");
}

TEST_CASE("identity_removal keeps every output name when one value feeds two output Identities") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Node* relu = graph.AddNode("Relu", "relu", {x});
  Node* a = graph.AddNode("Identity", "a", {relu->output(0)});
  Node* b = graph.AddNode("Identity", "b", {relu->output(0)});
  graph.SetOutputs({a->output(0), b->output(0)});

  CHECK(RunIdentityRemoval(graph));
  CHECK(CountOps(graph, "Identity") == 1);  // one must stay: a value has one name
  REQUIRE(graph.outputs().size() == 2);
  CHECK(graph.outputs()[0]->name() == "a");
  CHECK(graph.outputs()[1]->name() == "b");
  CHECK(graph.outputs()[0] != graph.outputs()[1]);
}

TEST_CASE("identity_removal keeps an Identity that another node orders itself after") {
  Graph graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{4});
  Node* identity = graph.AddNode("Identity", "id", {x});
  Node* relu = graph.AddNode("Relu", "relu", {identity->output(0)});
  Node* sigmoid = graph.AddNode("Sigmoid", "sigmoid", {x});
  sigmoid->AddControlInput(identity);
  graph.SetOutputs({relu->output(0), sigmoid->output(0)});

  CHECK_FALSE(RunIdentityRemoval(graph));
  CHECK(CountOps(graph, "Identity") == 1);
}

}  // namespace ge
