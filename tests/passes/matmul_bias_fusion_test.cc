// matmul_bias_fusion on graph structure: a constant row bias added to a
// product becomes the product's bias input; anything else stays an Add. The
// numbers are checked in tests/e2e/transformer_fusion_test.cc.
#include <catch2/catch.hpp>

#include "fusion_patterns.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

using test::CountOpType;

bool InferAndFuse(Graph& graph) {
  PassContext ctx;
  passes::MakeInferShapePass()->Run(graph, ctx);
  return passes::MakeMatMulBiasFusionPass()->Run(graph, ctx);
}

}  // namespace

TEST_CASE("matmul_bias_fusion gives the product the bias, keeping its name and the output name") {
  test::LinearPattern p;
  p.x_shape = GENERATE(Shape{2, 3, 8}, Shape{3, 8});
  p.bias_first = GENERATE(false, true);
  CAPTURE(p.x_shape.ToString(), p.bias_first);
  test::PatternGraph g = test::BuildLinearPattern(p);
  Graph& graph = *g.graph;
  Node* product = g.value("mm")->producer();
  const std::string op_type = product->op_type();

  REQUIRE(InferAndFuse(graph));
  CHECK(CountOpType(graph, "Add") == 0);
  CHECK(CountOpType(graph, op_type) == 1);
  CHECK(product->name() == "mm");
  CHECK(product->input(0) == g.value("x"));
  CHECK(product->input(1) == g.value("w"));
  CHECK(product->input(2) == g.value("bias"));
  REQUIRE(graph.outputs().size() == 1);
  CHECK(graph.outputs()[0] == product->output(0));
  CHECK(product->output(0)->name() == "y");
}

TEST_CASE("matmul_bias_fusion reshapes a [1, N] bias to the schema's [N]") {
  test::LinearPattern p;
  p.bias_shape = Shape{1, 5};
  test::PatternGraph g = test::BuildLinearPattern(p);
  Node* product = g.value("mm")->producer();
  REQUIRE(InferAndFuse(*g.graph));
  const Tensor* bias = product->input(2)->constant();
  REQUIRE(bias != nullptr);
  CHECK(bias->shape() == Shape{5});
  CHECK(bias->data() == g.value("bias")->constant()->data());  // the same values, not a copy
}

TEST_CASE("matmul_bias_fusion leaves an Add that is not a row bias of a single-use product") {
  test::LinearPattern p;
  SECTION("a bias per element") { p.bias_shape = Shape{3, 5}; }
  SECTION("a scalar") { p.bias_shape = Shape{1}; }
  test::PatternGraph g = test::BuildLinearPattern(p);
  Graph& graph = *g.graph;
  SECTION("a bias computed at run time") {
    g.value("y")->producer()->SetInput(1, graph.AddInput("b", DataType::kFloat, Shape{5}));
  }
  SECTION("a product read elsewhere") {
    graph.SetOutputs({g.value("y"), graph.AddNode("Relu", "reader", {g.value("mm")})->output(0)});
  }
  SECTION("a product that is a graph output") { graph.SetOutputs({g.value("y"), g.value("mm")}); }
  SECTION("a product that has a bias already") {
    g.value("mm")->producer()->SetInput(2, graph.AddConstant("own_bias", test::RandomFloats(Shape{5}, 3, 0, 1)));
  }
  CHECK_FALSE(InferAndFuse(graph));
  CHECK(CountOpType(graph, "Add") == 1);
}

}  // namespace ge

namespace ge {

TEST_CASE("matmul_bias_fusion fuses a product whose batch and sequence dims are unknown") {
  test::LinearPattern p;
  p.x_shape = Shape{Shape::kUnknownDim, Shape::kUnknownDim, 8};
  test::PatternGraph g = test::BuildLinearPattern(p);
  Node* product = g.value("mm")->producer();
  REQUIRE(InferAndFuse(*g.graph));
  CHECK(CountOpType(*g.graph, "Add") == 0);
  CHECK(product->input(2) == g.value("bias"));
  CHECK(product->output(0)->shape() == Shape{Shape::kUnknownDim, Shape::kUnknownDim, 5});
}

}  // namespace ge
