// layer_norm_fusion on graph structure: what fuses, into what, and what must
// stay decomposed. The numbers the fused graph computes are checked end to
// end in tests/e2e/transformer_fusion_test.cc.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fusion_patterns.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

using test::CountOpType;

// Shapes first (the pass needs them), then the fusion; returns whether it changed the graph.
bool InferAndFuse(Graph& graph, PassContext ctx = {}) {
  passes::MakeInferShapePass()->Run(graph, ctx);
  return passes::MakeLayerNormFusionPass()->Run(graph, ctx);
}

const Node& OnlyLayerNorm(const Graph& graph) {
  const Node* found = nullptr;
  for (const Node* node : graph.nodes()) {
    if (node->op_type() != "LayerNorm") continue;
    REQUIRE(found == nullptr);
    found = node;
  }
  REQUIRE(found != nullptr);
  return *found;
}

void CheckDecomposedOpsGone(const Graph& graph) {
  for (const char* op_type : {"ReduceMeanD", "Sub", "Pow", "Sqrt", "Div", "Reciprocal", "Mul", "Add"}) {
    CAPTURE(op_type);
    CHECK(CountOpType(graph, op_type) == 0);
  }
}

}  // namespace

TEST_CASE("layer_norm_fusion turns the exported decomposition into one LayerNorm keeping the output name") {
  test::LayerNormPattern p;
  p.square_by_mul = GENERATE(false, true);
  p.reciprocal = GENERATE(false, true);
  p.constants_first = GENERATE(false, true);
  p.axes = GENERATE(std::vector<int64_t>{-1}, std::vector<int64_t>{2});
  CAPTURE(p.square_by_mul, p.reciprocal, p.constants_first, p.axes);
  p.epsilon = 1e-6f;
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  Value* x = g.value("x");
  Value* gamma = g.value("gamma");
  Value* beta = g.value("beta");

  REQUIRE(InferAndFuse(*g.graph));
  CheckDecomposedOpsGone(*g.graph);
  const Node& ln = OnlyLayerNorm(*g.graph);
  CHECK(ln.input(0) == x);
  CHECK(ln.input(1) == gamma);
  CHECK(ln.input(2) == beta);
  CHECK(ln.attrs().GetInt("begin_norm_axis") == 2);
  CHECK(ln.attrs().GetInt("begin_params_axis") == 2);
  CHECK(ln.attrs().GetFloat("epsilon") == 1e-6f);
  CHECK(ln.name() == "LayerNorm");
  REQUIRE(g.graph->outputs().size() == 1);
  CHECK(g.graph->outputs()[0] == ln.output(0));
  CHECK(ln.output(0)->name() == "y");
  CHECK(ln.output(0)->shape() == p.shape);
  CHECK(ln.output(0)->dtype() == DataType::kFloat);
}

TEST_CASE("layer_norm_fusion normalizes over several trailing axes") {
  test::LayerNormPattern p;
  p.shape = Shape{2, 3, 4, 5};
  p.axes = {-1, 2};
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  REQUIRE(InferAndFuse(*g.graph));
  const Node& ln = OnlyLayerNorm(*g.graph);
  CHECK(ln.attrs().GetInt("begin_norm_axis") == 2);
  CHECK(ln.input(1)->shape() == Shape{4, 5});
}

TEST_CASE("layer_norm_fusion supplies ones for a missing gamma and zeros for a missing beta") {
  test::LayerNormPattern p;
  p.gamma = GENERATE(true, false);
  p.beta = GENERATE(true, false);
  CAPTURE(p.gamma, p.beta);
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  REQUIRE(InferAndFuse(*g.graph));
  CheckDecomposedOpsGone(*g.graph);
  const Node& ln = OnlyLayerNorm(*g.graph);
  CHECK(ln.output(0)->name() == "y");
  CHECK(g.graph->outputs()[0] == ln.output(0));
  for (int i : {1, 2}) {
    const Tensor* parameter = ln.input(i)->constant();
    REQUIRE(parameter != nullptr);
    CHECK(parameter->shape() == Shape{8});
    CHECK(parameter->dtype() == DataType::kFloat);
    const bool given = i == 1 ? p.gamma : p.beta;
    if (given) continue;
    for (float value : parameter->values<float>()) CHECK(value == (i == 1 ? 1.0f : 0.0f));
  }
}

TEST_CASE("layer_norm_fusion leaves a pattern whose intermediate is read elsewhere") {
  const std::string role = GENERATE("mean", "d", "square", "var", "var_eps", "std");
  CAPTURE(role);
  test::LayerNormPattern p;
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  test::ObserveOutside(g, role);
  Graph& graph = *g.graph;
  CHECK_FALSE(InferAndFuse(graph));
  CHECK(CountOpType(graph, "LayerNorm") == 0);
  CHECK(CountOpType(graph, "ReduceMeanD") == 2);
}

TEST_CASE("layer_norm_fusion ends the fused chain at a value that must stay observable") {
  test::LayerNormPattern p;
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  Graph& graph = *g.graph;
  SECTION("the normalized value") {
    graph.SetOutputs({g.value("y"), g.value("n")});
    REQUIRE(InferAndFuse(graph));
    const Node& ln = OnlyLayerNorm(graph);
    CHECK(ln.output(0)->name() == "n");
    CHECK(CountOpType(graph, "Mul") == 1);
    CHECK(CountOpType(graph, "Add") == 1);
  }
  SECTION("the value times gamma") {
    graph.SetOutputs({g.value("y"), g.value("scaled")});
    REQUIRE(InferAndFuse(graph));
    const Node& ln = OnlyLayerNorm(graph);
    CHECK(ln.output(0)->name() == "scaled");
    CHECK(ln.input(1) == g.value("gamma"));
    CHECK(CountOpType(graph, "Mul") == 0);
    CHECK(CountOpType(graph, "Add") == 1);
  }
}

TEST_CASE("layer_norm_fusion leaves patterns that compute something else") {
  test::LayerNormPattern p;
  SECTION("an exponent other than 2") { p.exponent = 3.0f; }
  SECTION("an exponent just off 2") { p.exponent = 2.001f; }
  SECTION("a negative epsilon") { p.epsilon = -1e-5f; }
  SECTION("a leading axis") { p.axes = {1}; }
  SECTION("axes that are not trailing") {
    p.shape = Shape{2, 3, 4, 5};
    p.axes = {1, 3};
  }
  SECTION("the variance over other axes") {
    p.shape = Shape{2, 3, 4, 5};
    p.axes = {-1};
    p.variance_axes = {-2, -1};
  }
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  CHECK_FALSE(InferAndFuse(*g.graph));
  CHECK(CountOpType(*g.graph, "LayerNorm") == 0);
}

TEST_CASE("layer_norm_fusion leaves the pattern on a device without a LayerNorm kernel for the dtype") {
  test::LayerNormPattern p;
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  PassContext ctx;
  std::vector<std::string> asked;
  ctx.has_kernel = [&](const std::string& op_type, DataType dtype) {
    asked.push_back(op_type);
    return !(op_type == "LayerNorm" && dtype == DataType::kFloat);
  };
  CHECK_FALSE(InferAndFuse(*g.graph, ctx));
  CHECK(CountOpType(*g.graph, "LayerNorm") == 0);
  CHECK(std::count(asked.begin(), asked.end(), "LayerNorm") >= 1);
}

TEST_CASE("layer_norm_fusion leaves a pattern whose gamma is not a constant or does not cover the normalized dims") {
  test::LayerNormPattern p;
  test::PatternGraph g = test::BuildLayerNormPattern(p);
  Graph& graph = *g.graph;
  Node* scaled = g.value("scaled")->producer();
  SECTION("gamma is an input") {
    scaled->SetInput(1, graph.AddInput("gamma_in", DataType::kFloat, Shape{8}));
    REQUIRE(InferAndFuse(graph));
    // The normalization still fuses, without the Mul and what follows it.
    CHECK(CountOpType(graph, "LayerNorm") == 1);
    CHECK(CountOpType(graph, "Mul") == 1);
    CHECK(CountOpType(graph, "Add") == 1);
  }
  SECTION("gamma is a scalar") {
    scaled->SetInput(1, graph.AddConstant("gamma_scalar", test::ScalarFloat(2.0f)));
    REQUIRE(InferAndFuse(graph));
    CHECK(CountOpType(graph, "LayerNorm") == 1);
    CHECK(CountOpType(graph, "Mul") == 1);
  }
}

}  // namespace ge

namespace ge {

TEST_CASE("layer_norm_fusion fuses with unknown batch and sequence dims, not with an unknown normalized dim") {
  const int64_t u = Shape::kUnknownDim;
  test::LayerNormPattern p;
  SECTION("the leading dims unknown: fused") {
    p.shape = Shape{u, u, 8};
    test::PatternGraph g = test::BuildLayerNormPattern(p);
    REQUIRE(InferAndFuse(*g.graph));
    CHECK(OnlyLayerNorm(*g.graph).output(0)->shape() == p.shape);
  }
  SECTION("the normalized dim unknown: left decomposed") {
    p.shape = Shape{2, 3, u};
    p.gamma = false;  // a constant gamma would fix the dim
    p.beta = false;
    test::PatternGraph g = test::BuildLayerNormPattern(p);
    CHECK_FALSE(InferAndFuse(*g.graph));
    CHECK(CountOpType(*g.graph, "LayerNorm") == 0);
  }
}

}  // namespace ge
