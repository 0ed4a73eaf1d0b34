// VerifyGraph: structural and schema errors, each naming the node.
#include <catch2/catch.hpp>
#include <memory>

#include "ge/error.h"
#include "ge/graph.h"
#include "graph/verifier.h"

using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;

namespace {

ge::Error VerifyError(const ge::Graph& graph, const ge::VerifyOptions& options = {}) {
  try {
    ge::VerifyGraph(graph, options);
  } catch (const ge::Error& e) {
    return e;
  }
  FAIL("VerifyGraph accepted the graph");
  return ge::Error(ge::ErrorCode::kOk, "");
}

// x -> relu -> output.
std::unique_ptr<ge::Graph> ReluGraph() {
  auto graph = std::make_unique<ge::Graph>("g");
  ge::Value* x = graph->AddInput("x", DataType::kFloat, {2, 3});
  ge::Node* relu = graph->AddNode("Relu", "relu", {x});
  relu->output(0)->set_dtype(DataType::kFloat);
  relu->output(0)->set_shape({2, 3});
  graph->SetOutputs({relu->output(0)});
  return graph;
}

}  // namespace

TEST_CASE("A well-formed graph verifies") {
  auto graph = ReluGraph();
  CHECK_NOTHROW(ge::VerifyGraph(*graph));
}

TEST_CASE("Verifier reports a cycle naming a node on it") {
  auto graph = ReluGraph();
  ge::Node* relu = graph->FindNode("relu");
  ge::Node* back = graph->AddNode("Relu", "back", {relu->output(0)});
  relu->SetInput(0, back->output(0));
  const ge::Error e = VerifyError(*graph);
  CHECK(e.code() == ge::ErrorCode::kInvalidModel);
  CHECK_THAT(e.what(), Catch::Contains("cycle") &&
                           (Catch::Contains("node 'relu' (Relu)") || Catch::Contains("node 'back' (Relu)")));
}

TEST_CASE("Verifier reports an input from a removed value or another graph") {
  auto graph = ReluGraph();
  ge::Node* consumer = graph->AddNode("Relu", "consumer", {});
  {
    ge::Graph other("other");
    consumer->SetInput(0, other.AddInput("y", DataType::kFloat, {2}));
    const ge::Error e = VerifyError(*graph);
    CHECK_THAT(e.what(), Catch::Contains("node 'consumer' (Relu)") && Catch::Contains("input 0"));
    // `other` is destroyed here; the consumer keeps a dangling pointer, which
    // the verifier must report without following it.
  }
  const ge::Error e = VerifyError(*graph);
  CHECK(e.code() == ge::ErrorCode::kInvalidModel);
  CHECK_THAT(e.what(), Catch::Contains("node 'consumer' (Relu)") && Catch::Contains("not in graph 'g'"));
}

TEST_CASE("Verifier reports a graph output not produced in the graph") {
  auto graph = ReluGraph();
  ge::Graph other("other");
  graph->SetOutputs({graph->FindNode("relu")->output(0), other.AddInput("z", DataType::kFloat, {1})});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("output 1"));
  graph->SetOutputs({nullptr});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("output 0"));
}

TEST_CASE("Verifier reports unknown ops unless allowed") {
  auto graph = ReluGraph();
  graph->AddNode("FancyCustomOp", "fancy", {graph->inputs()[0]});
  const ge::Error e = VerifyError(*graph);
  CHECK(e.code() == ge::ErrorCode::kUnsupported);
  CHECK_THAT(e.what(), Catch::Contains("node 'fancy' (FancyCustomOp)"));
  CHECK_NOTHROW(ge::VerifyGraph(*graph, {.allow_unknown_ops = true}));
}

TEST_CASE("Verifier reports input counts and attributes that contradict the schema") {
  auto graph = ReluGraph();
  ge::Value* x = graph->inputs()[0];
  graph->AddNode("Relu", "two_inputs", {x, x});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("node 'two_inputs' (Relu)") && Catch::Contains("2 inputs"));

  auto conv_graph = ReluGraph();
  ge::Value* cx = conv_graph->inputs()[0];
  ge::Node* conv = conv_graph->AddNode("Conv2D", "conv", {cx, cx});
  conv->attrs().Set("pads", Ints{0, 0, 0, 0});
  CHECK_THAT(VerifyError(*conv_graph).what(), Catch::Contains("node 'conv' (Conv2D)") && Catch::Contains("'strides'"));
}

TEST_CASE("Verifier checks dtypes unless told not to") {
  auto graph = ReluGraph();
  ge::Value* i = graph->AddInput("i", DataType::kInt32, {2, 3});
  graph->AddNode("Add", "mixed", {graph->inputs()[0], i});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("node 'mixed' (Add)") && Catch::Contains("int32"));
  CHECK_NOTHROW(ge::VerifyGraph(*graph, {.check_dtypes = false}));
}

TEST_CASE("Verifier reports duplicate graph input indices") {
  auto graph = ReluGraph();
  ge::Node* data = graph->AddNode("Data", "x_again", {});
  data->attrs().Set("index", int64_t{0});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("node 'x_again' (Data)") && Catch::Contains("index 0"));
  data->attrs().Set("index", int64_t{2});
  CHECK_THAT(VerifyError(*graph).what(), Catch::Contains("node 'x_again' (Data)") && Catch::Contains("gap"));
}
