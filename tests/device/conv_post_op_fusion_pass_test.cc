// Which patterns conv_post_op_fusion folds into a Conv2D, and which it must
// leave alone. What the fused convolutions compute is checked in
// tests/runtime/conv_post_op_fusion_run_test.cc.
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "graph/conv_post_ops.h"
#include "device/cpu/passes/cpu_rewrite_passes.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

constexpr int64_t kChannels = 4;
const Shape kShape{1, kChannels, 6, 6};

Value* ScalarConstant(GraphBuilder& b, const std::string& name, float value) {
  return b.Constant(name, Tensor::FromVector<float>(DataType::kFloat, Shape{}, {value}));
}

// A 3x3 "same" convolution of x, float32 unless the dtype says otherwise.
Value* Conv(GraphBuilder& b, Value* x, DataType dtype = DataType::kFloat) {
  Tensor filter(dtype, Shape{kChannels, kChannels, 3, 3});
  return b.Conv2D(x, b.Constant("filter", std::move(filter)), nullptr, {{1, 1}, {1, 1, 1, 1}}, "conv");
}

Value* Clip(GraphBuilder& b, Value* x, Value* low, Value* high) {
  return b.Op("ClipByValue", {x, low, high}, {}, 1, "clip")[0];
}

// Runs shape inference, then the pass; returns whether the pass changed the graph.
bool Fuse(Graph& graph) {
  PassContext ctx;
  passes::MakeInferShapePass()->Run(graph, ctx);
  return device::cpu::MakeConvPostOpFusionPass()->Run(graph, ctx);
}

size_t CountOps(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

const Node& ConvNode(const Graph& graph) {
  const Node* conv = graph.FindNode("conv");
  REQUIRE(conv != nullptr);
  return *conv;
}

TEST_CASE("conv_post_op_fusion folds a Relu into the Conv2D, which takes over the output name") {
  GraphBuilder b;
  b.Output(b.Relu(Conv(b, b.Input("x", DataType::kFloat, kShape)), "y"));
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(Fuse(*graph));
  CHECK(CountOps(*graph, "Relu") == 0);
  const Node& conv = ConvNode(*graph);
  CHECK(conv.attrs().GetString(kFusedActivationAttr) == kFusedRelu);
  CHECK_FALSE(conv.attrs().Has(kFusedAddAttr));
  REQUIRE(graph->outputs().size() == 1);
  CHECK(graph->outputs()[0] == conv.output(0));
  CHECK(graph->outputs()[0]->name() == "y");
  CHECK(graph->outputs()[0]->shape() == kShape);
}

TEST_CASE("conv_post_op_fusion folds a ClipByValue with constant scalar bounds (Relu6)") {
  GraphBuilder b;
  Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
  b.Output(b.Sigmoid(Clip(b, conv, ScalarConstant(b, "lo", 0), ScalarConstant(b, "hi", 6)), "y"));
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(Fuse(*graph));
  CHECK(CountOps(*graph, "ClipByValue") == 0);
  const Node& fused = ConvNode(*graph);
  CHECK(fused.attrs().GetString(kFusedActivationAttr) == kFusedClip);
  CHECK(fused.attrs().GetFloat(kFusedClipMinAttr) == 0.0f);
  CHECK(fused.attrs().GetFloat(kFusedClipMaxAttr) == 6.0f);
  // The downstream Sigmoid reads the value the Clip produced, under its name.
  const Node* sigmoid = graph->FindNode("y");
  REQUIRE(sigmoid != nullptr);
  CHECK(sigmoid->input(0) == fused.output(0));
  CHECK(fused.output(0)->name() == "clip");
}

TEST_CASE("conv_post_op_fusion folds a same-shape Add and the Relu after it, the addend on either side") {
  for (bool conv_first : {true, false}) {
    GraphBuilder b;
    Value* x = b.Input("x", DataType::kFloat, kShape);
    Value* skip = b.Sigmoid(x, "skip");
    Value* conv = Conv(b, x);
    b.Output(b.Relu(conv_first ? b.Add(conv, skip, "add") : b.Add(skip, conv, "add"), "y"));
    std::unique_ptr<Graph> graph = b.Build();
    REQUIRE(Fuse(*graph));
    CHECK(CountOps(*graph, "Add") == 0);
    CHECK(CountOps(*graph, "Relu") == 0);
    const Node& fused = ConvNode(*graph);
    CHECK(fused.attrs().GetBool(kFusedAddAttr));
    CHECK(fused.attrs().GetString(kFusedActivationAttr) == kFusedRelu);
    REQUIRE(fused.num_inputs() == kConvFusedAddend + 1);
    CHECK(fused.input(kConvFusedAddend) == skip);
    CHECK(graph->outputs()[0] == fused.output(0));
    CHECK(graph->outputs()[0]->name() == "y");
  }
}

TEST_CASE("conv_post_op_fusion folds nothing after an activation: Add(Relu(conv), y) keeps its Add") {
  GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, kShape);
  b.Output(b.Add(b.Relu(Conv(b, x), "relu"), x, "y"));
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(Fuse(*graph));
  CHECK(CountOps(*graph, "Relu") == 0);
  CHECK(CountOps(*graph, "Add") == 1);
  CHECK_FALSE(ConvNode(*graph).attrs().Has(kFusedAddAttr));
}

TEST_CASE("conv_post_op_fusion leaves a convolution whose result is also read elsewhere") {
  SECTION("used twice") {
    GraphBuilder b;
    Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
    b.Output(b.Add(b.Relu(conv, "relu"), conv, "y"));
    std::unique_ptr<Graph> graph = b.Build();
    CHECK_FALSE(Fuse(*graph));
    CHECK(CountOps(*graph, "Relu") == 1);
  }
  SECTION("a graph output") {
    GraphBuilder b;
    Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
    b.Outputs({b.Relu(conv, "relu"), conv});
    std::unique_ptr<Graph> graph = b.Build();
    CHECK_FALSE(Fuse(*graph));
    CHECK(CountOps(*graph, "Relu") == 1);
  }
}

TEST_CASE("conv_post_op_fusion leaves a ClipByValue whose bounds are not constant scalars") {
  SECTION("bounds from graph inputs") {
    GraphBuilder b;
    Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
    b.Output(Clip(b, conv, b.Input("lo", DataType::kFloat, Shape{}), b.Input("hi", DataType::kFloat, Shape{})));
    std::unique_ptr<Graph> graph = b.Build();
    CHECK_FALSE(Fuse(*graph));
    CHECK(CountOps(*graph, "ClipByValue") == 1);
  }
  SECTION("min above max") {
    GraphBuilder b;
    Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
    b.Output(Clip(b, conv, ScalarConstant(b, "lo", 6), ScalarConstant(b, "hi", 0)));
    std::unique_ptr<Graph> graph = b.Build();
    CHECK_FALSE(Fuse(*graph));
  }
}

TEST_CASE("conv_post_op_fusion leaves an Add that broadcasts") {
  GraphBuilder b;
  Value* conv = Conv(b, b.Input("x", DataType::kFloat, kShape));
  b.Output(b.Add(conv, b.Input("per_channel", DataType::kFloat, Shape{1, kChannels, 1, 1}), "y"));
  std::unique_ptr<Graph> graph = b.Build();
  CHECK_FALSE(Fuse(*graph));
  CHECK(CountOps(*graph, "Add") == 1);
}

TEST_CASE("conv_post_op_fusion runs only for the float32 oneDNN convolution of the CPU") {
  SECTION("float16") {
    GraphBuilder b;
    b.Output(b.Relu(Conv(b, b.Input("x", DataType::kFloat16, kShape), DataType::kFloat16)));
    std::unique_ptr<Graph> graph = b.Build();
    CHECK_FALSE(Fuse(*graph));
  }
  SECTION("bfloat16 products (high_performance)") {
    GraphBuilder b;
    b.Output(b.Relu(Conv(b, b.Input("x", DataType::kFloat, kShape))));
    std::unique_ptr<Graph> graph = b.Build();
    graph->FindNode("conv")->attrs().Set("_op_impl_mode", std::string("high_performance"));
    CHECK_FALSE(Fuse(*graph));
  }
}

}  // namespace
}  // namespace ge
