// gelu_fusion on graph structure: the exported spellings of the erf GELU fuse,
// look-alikes do not, and the fused node keeps the implementation mode of the
// nodes it replaces. The numbers are checked in tests/e2e/transformer_fusion_test.cc.
#include <catch2/catch.hpp>

#include "fusion_patterns.h"
#include "passes/builtin_passes.h"
#include "passes/impl_mode_selection.h"

namespace ge {
namespace {

using test::CountOpType;

bool InferAndFuse(Graph& graph, PassContext ctx = {}) {
  passes::MakeInferShapePass()->Run(graph, ctx);
  return passes::MakeGeluFusionPass()->Run(graph, ctx);
}

const Node* OnlyGelu(const Graph& graph) {
  const Node* found = nullptr;
  for (const Node* node : graph.nodes()) {
    if (node->op_type() != "Gelu") continue;
    REQUIRE(found == nullptr);
    found = node;
  }
  REQUIRE(found != nullptr);
  return found;
}

}  // namespace

TEST_CASE("gelu_fusion turns each exported erf GELU into one Gelu keeping the output name") {
  test::GeluPattern p;
  p.form = GENERATE(test::GeluForm::kHalfLast, test::GeluForm::kHalfOfSum, test::GeluForm::kHalfFirst);
  p.scale_by_mul = GENERATE(false, true);
  p.constants_first = GENERATE(false, true);
  CAPTURE(static_cast<int>(p.form), p.scale_by_mul, p.constants_first);
  test::PatternGraph g = test::BuildGeluPattern(p);
  Graph& graph = *g.graph;

  REQUIRE(InferAndFuse(graph));
  for (const char* op_type : {"Div", "Erf", "Add", "Mul"}) {
    CAPTURE(op_type);
    CHECK(CountOpType(graph, op_type) == 0);
  }
  const Node* gelu = OnlyGelu(graph);
  CHECK(gelu->input(0) == g.value("x"));
  CHECK(gelu->name() == "Gelu");
  REQUIRE(graph.outputs().size() == 1);
  CHECK(graph.outputs()[0] == gelu->output(0));
  CHECK(gelu->output(0)->name() == "y");
  CHECK(gelu->output(0)->shape() == p.shape);
}

TEST_CASE("gelu_fusion accepts constants rounded to float32 and rejects other values") {
  test::GeluPattern p;
  SECTION("sqrt(2) rounded up") {
    p.sqrt2 = 1.41421366f;  // one float32 step above the nearest value of sqrt(2)
    CHECK(InferAndFuse(*test::BuildGeluPattern(p).graph));
  }
  SECTION("sqrt(2) to four digits") {
    p.sqrt2 = 1.4142f;
    CHECK_FALSE(InferAndFuse(*test::BuildGeluPattern(p).graph));
  }
  SECTION("2 instead of 1") {
    p.one = 2.0f;
    CHECK_FALSE(InferAndFuse(*test::BuildGeluPattern(p).graph));
  }
  SECTION("0.25 instead of 0.5") {
    p.half = 0.25f;
    p.form = GENERATE(test::GeluForm::kHalfLast, test::GeluForm::kHalfOfSum, test::GeluForm::kHalfFirst);
    CHECK_FALSE(InferAndFuse(*test::BuildGeluPattern(p).graph));
  }
}

TEST_CASE("gelu_fusion leaves a pattern whose intermediate is read elsewhere") {
  test::GeluPattern p;
  p.form = GENERATE(test::GeluForm::kHalfLast, test::GeluForm::kHalfFirst);
  const std::string role = GENERATE("s", "erf", "a", "m");
  CAPTURE(static_cast<int>(p.form), role);
  test::PatternGraph g = test::BuildGeluPattern(p);
  test::ObserveOutside(g, role);
  Graph& graph = *g.graph;
  CHECK_FALSE(InferAndFuse(graph));
  CHECK(CountOpType(graph, "Gelu") == 0);
  CHECK(CountOpType(graph, "Erf") == 1);
}

TEST_CASE("gelu_fusion leaves a pattern that multiplies by something other than its input") {
  test::GeluPattern p;
  p.form = GENERATE(test::GeluForm::kHalfLast, test::GeluForm::kHalfOfSum, test::GeluForm::kHalfFirst);
  CAPTURE(static_cast<int>(p.form));
  test::PatternGraph g = test::BuildGeluPattern(p);
  Graph& graph = *g.graph;
  Value* other = graph.AddInput("z", DataType::kFloat, p.shape);
  // The one Mul that reads x directly now reads z: the result is z * Phi(x), not a GELU.
  Node* reader = g.value(p.form == test::GeluForm::kHalfOfSum ? "y" : "m")->producer();
  reader->SetInput(reader->input(0) == g.value("x") ? 0 : 1, other);
  CHECK_FALSE(InferAndFuse(graph));
  CHECK(CountOpType(graph, "Gelu") == 0);
}

TEST_CASE("gelu_fusion leaves the pattern on a device without a Gelu kernel for the dtype") {
  test::PatternGraph g = test::BuildGeluPattern({});
  PassContext ctx;
  ctx.has_kernel = [](const std::string& op_type, DataType) { return op_type != "Gelu"; };
  CHECK_FALSE(InferAndFuse(*g.graph, ctx));
  CHECK(CountOpType(*g.graph, "Gelu") == 0);
}

TEST_CASE("gelu_fusion runs the fast Gelu only where the nodes it replaces all ran fast") {
  test::PatternGraph g = test::BuildGeluPattern({});
  Graph& graph = *g.graph;
  PassContext ctx;
  ctx.kernel_impl_modes = [](const Node& node) {
    return node.op_type() == "Gelu" ? std::vector<std::string>{"high_precision", "high_performance"}
                                    : std::vector<std::string>{};
  };
  const char* erf_mode = GENERATE("high_precision", "high_performance", "");
  CAPTURE(erf_mode);
  // What impl_mode leaves on nodes with a choice; Add and Mul have none.
  g.value("s")->producer()->attrs().Set(ge::kImplModeAttr, std::string("high_performance"));
  if (*erf_mode != '\0') g.value("erf")->producer()->attrs().Set(ge::kImplModeAttr, std::string(erf_mode));

  REQUIRE(InferAndFuse(graph, ctx));
  const Node* gelu = OnlyGelu(graph);
  // Erf left bare has no choice of its own, so the Div alone decides.
  const std::string expected = std::string(erf_mode) == "high_precision" ? "high_precision" : "high_performance";
  REQUIRE(gelu->attrs().Has(ge::kImplModeAttr));
  CHECK(gelu->attrs().GetString(ge::kImplModeAttr) == expected);
  CHECK(gelu->attrs().GetString(ge::kRequestedImplModeAttr).empty());
  CHECK(gelu->attrs().GetString(ge::kImplModeReasonAttr).find("gelu_fusion") != std::string::npos);
}

TEST_CASE("gelu_fusion leaves the fused node bare when no replaced node chose a mode") {
  test::PatternGraph g = test::BuildGeluPattern({});
  PassContext ctx;
  ctx.kernel_impl_modes = [](const Node&) { return std::vector<std::string>{"high_precision", "high_performance"}; };
  REQUIRE(InferAndFuse(*g.graph, ctx));
  CHECK_FALSE(OnlyGelu(*g.graph)->attrs().Has(ge::kImplModeAttr));
}

}  // namespace ge

namespace ge {

TEST_CASE("gelu_fusion fuses an input whose dims are unknown") {
  test::GeluPattern p;
  p.shape = Shape{Shape::kUnknownDim, Shape::kUnknownDim, 16};
  test::PatternGraph g = test::BuildGeluPattern(p);
  REQUIRE(InferAndFuse(*g.graph));
  CHECK(OnlyGelu(*g.graph)->output(0)->shape() == p.shape);
}

}  // namespace ge
