// The nhwc_layout pass: which nodes move to NHWC, where the transposes go,
// and what it must leave alone. The numbers it computes are checked in
// tests/runtime/nhwc_layout_run_test.cc.
#include <catch2/catch.hpp>

#include <algorithm>

#include "device/cpu/passes/cpu_rewrite_passes.h"
#include "passes/builtin_passes.h"

namespace ge {
namespace {

const std::vector<int64_t> kToNhwc = {0, 2, 3, 1};
const std::vector<int64_t> kToNchw = {0, 3, 1, 2};

Value* Filter(Graph& g, int64_t out_c, int64_t in_c, int64_t k, DataType dtype = DataType::kFloat) {
  return g.AddConstant(g.UniqueName("w"), Tensor(dtype, Shape{out_c, in_c, k, k}));
}

// A 3x3 "same" convolution (1x1 when k = 1).
Node* Conv(Graph& g, Value* x, Value* filter, int64_t k = 3) {
  Node* conv = g.AddNode("Conv2D", g.UniqueName("conv"), {x, filter});
  conv->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  conv->attrs().Set("pads", std::vector<int64_t>(4, k / 2));
  return conv;
}

// Shape inference, the pass, dead-code elimination; returns whether the pass changed the graph.
bool Compile(Graph& g) {
  PassContext ctx;
  passes::MakeInferShapePass()->Run(g, ctx);
  const bool changed = device::cpu::MakeNhwcLayoutPass()->Run(g, ctx);
  passes::MakeDeadCodeEliminationPass()->Run(g, ctx);
  return changed;
}

std::vector<Node*> NodesOf(const Graph& g, const std::string& op_type) {
  std::vector<Node*> found;
  for (Node* node : g.TopologicalOrder()) {
    if (node->op_type() == op_type) found.push_back(node);
  }
  return found;
}

std::string FormatOf(const Node& node) { return node.attrs().GetString("data_format"); }

bool IsTranspose(const Node* node, const std::vector<int64_t>& perm) {
  return node != nullptr && node->op_type() == "TransposeD" && node->attrs().GetInts("perm") == perm;
}

TEST_CASE("nhwc_layout: a conv-relu-conv-add-maxpool-mean chain runs on NHWC between two transposes",
          "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 8, 16, 16});
  Node* relu = g.AddNode("Relu", "relu", {Conv(g, x, Filter(g, 16, 8, 3))->output(0)});
  Node* conv2 = Conv(g, relu->output(0), Filter(g, 16, 16, 3));
  Node* add = g.AddNode("Add", "add", {conv2->output(0), relu->output(0)});
  Node* pool = g.AddNode("MaxPoolV3", "pool", {add->output(0)});
  pool->attrs().Set("ksize", std::vector<int64_t>{1, 1, 3, 3});
  pool->attrs().Set("strides", std::vector<int64_t>{1, 1, 2, 2});
  pool->attrs().Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  Node* mean = g.AddNode("ReduceMeanD", "mean", {pool->output(0)});
  mean->attrs().Set("axes", std::vector<int64_t>{2, 3});
  mean->attrs().Set("keep_dims", true);
  g.SetOutputs({mean->output(0)});

  REQUIRE(Compile(g));
  const std::vector<Node*> transposes = NodesOf(g, "TransposeD");
  REQUIRE(transposes.size() == 2);
  CHECK(IsTranspose(transposes[0], kToNhwc));
  CHECK(transposes[0]->input(0) == x);
  CHECK(IsTranspose(transposes[1], kToNchw));
  for (const Node* node : NodesOf(g, "Conv2D")) {
    CHECK(FormatOf(*node) == "NHWC");
    CHECK(node->attrs().GetInts("strides") == std::vector<int64_t>{1, 1, 1, 1});
  }
  const std::vector<Node*> pools = NodesOf(g, "MaxPoolV3");
  REQUIRE(pools.size() == 1);
  CHECK(FormatOf(*pools[0]) == "NHWC");
  CHECK(pools[0]->attrs().GetInts("ksize") == std::vector<int64_t>{1, 3, 3, 1});
  CHECK(pools[0]->attrs().GetInts("strides") == std::vector<int64_t>{1, 2, 2, 1});
  CHECK(pools[0]->output(0)->shape() == Shape{1, 8, 8, 16});
  const std::vector<Node*> means = NodesOf(g, "ReduceMeanD");
  REQUIRE(means.size() == 1);
  CHECK(means[0]->attrs().GetInts("axes") == std::vector<int64_t>{1, 2});
  // The graph output keeps its name, shape and layout.
  REQUIRE(g.outputs().size() == 1);
  CHECK(g.outputs()[0]->name() == "mean");
  CHECK(g.outputs()[0]->shape() == Shape{1, 16, 1, 1});
  CHECK(g.outputs()[0]->producer() == transposes[1]);
}

TEST_CASE("nhwc_layout: an int8 AscendQuant -> QuantConv2D -> MaxPool -> QuantConv2D -> AscendAntiQuant chain runs "
          "on NHWC",
          "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 8, 10, 10});
  Node* quant = g.AddNode("AscendQuant", "quant", {x});
  quant->attrs().Set("scale", 16.0f);
  const auto quant_conv = [&](const std::string& name, Value* input, int64_t out_c, int64_t in_c, int64_t dtype) {
    Value* words = g.AddConstant(g.UniqueName(name + "_scale"),
                                 Tensor::FromVector<uint64_t>(DataType::kUInt64, Shape{1}, {0x3c800000}));  // 1/64
    Node* conv = g.AddNode("QuantConv2D", name, {input, Filter(g, out_c, in_c, 3, DataType::kInt8), words});
    conv->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
    conv->attrs().Set("pads", std::vector<int64_t>(4, 1));
    conv->attrs().Set("dtype", dtype);
    return conv;
  };
  Node* conv1 = quant_conv("conv1", quant->output(0), 16, 8, static_cast<int64_t>(DataType::kInt8));
  Node* pool = g.AddNode("MaxPoolV3", "pool", {conv1->output(0)});
  pool->attrs().Set("ksize", std::vector<int64_t>{1, 1, 2, 2});
  pool->attrs().Set("strides", std::vector<int64_t>{1, 1, 2, 2});
  Node* conv2 = quant_conv("conv2", pool->output(0), 4, 16, static_cast<int64_t>(DataType::kInt8));
  Node* dequant = g.AddNode("AscendAntiQuant", "dequant", {conv2->output(0)});
  dequant->attrs().Set("scale", 0.5f);
  g.SetOutputs({dequant->output(0)});

  REQUIRE(Compile(g));
  const std::vector<Node*> transposes = NodesOf(g, "TransposeD");
  REQUIRE(transposes.size() == 2);
  // The input's AscendQuant reads no NHWC value, so it stays; the transpose then moves int8 bytes.
  CHECK(transposes[0]->input(0) == quant->output(0));
  CHECK(quant->output(0)->shape() == Shape{1, 8, 10, 10});
  for (const Node* node : {conv1, pool, conv2}) CHECK(FormatOf(*node) == "NHWC");
  CHECK(conv1->output(0)->dtype() == DataType::kInt8);
  CHECK(conv1->output(0)->shape() == Shape{1, 10, 10, 16});
  CHECK(pool->output(0)->shape() == Shape{1, 5, 5, 16});
  CHECK(dequant->input(0) == conv2->output(0));  // moved with the int8 region
  CHECK(g.outputs()[0]->dtype() == DataType::kFloat);
  CHECK(g.outputs()[0]->shape() == Shape{1, 4, 5, 5});
  CHECK(IsTranspose(g.outputs()[0]->producer(), kToNchw));
}

TEST_CASE("nhwc_layout: an AscendQuant between NHWC ops moves with them", "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 4, 8, 8});
  Node* relu = g.AddNode("Relu", "relu", {Conv(g, x, Filter(g, 4, 4, 3))->output(0)});
  Node* quant = g.AddNode("AscendQuant", "quant", {relu->output(0)});
  quant->attrs().Set("scale", 16.0f);
  g.SetOutputs({quant->output(0)});

  REQUIRE(Compile(g));
  CHECK(quant->input(0) == relu->output(0));
  CHECK(quant->output(0)->shape() == Shape{1, 8, 8, 4});
  CHECK(IsTranspose(g.outputs()[0]->producer(), kToNchw));
  CHECK(g.outputs()[0]->dtype() == DataType::kInt8);
}

TEST_CASE("nhwc_layout: a convolution that is also a graph output is transposed back under its name",
          "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 4, 8, 8});
  Node* conv = Conv(g, x, Filter(g, 6, 4, 3));
  Node* relu = g.AddNode("Relu", "relu", {conv->output(0)});
  g.SetOutputs({conv->output(0), relu->output(0)});
  const std::string conv_name = conv->output(0)->name();

  REQUIRE(Compile(g));
  REQUIRE(g.outputs().size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    CHECK(g.outputs()[i]->shape() == Shape{1, 6, 8, 8});
    CHECK(IsTranspose(g.outputs()[i]->producer(), kToNchw));
  }
  CHECK(g.outputs()[0]->name() == conv_name);
  CHECK(g.outputs()[1]->name() == "relu");
}

TEST_CASE("nhwc_layout: an op that depends on the layout reads the transposed-back value", "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{2, 4, 5, 5});
  Node* conv = Conv(g, x, Filter(g, 3, 4, 1), 1);
  Value* shape = g.AddConstant("shape", Tensor::FromVector<int64_t>(DataType::kInt64, Shape{2}, {2, 75}));
  Node* reshape = g.AddNode("Reshape", "flat", {conv->output(0), shape});
  g.SetOutputs({reshape->output(0)});

  REQUIRE(Compile(g));
  CHECK(IsTranspose(reshape->input(0)->producer(), kToNchw));
  CHECK(reshape->input(0)->shape() == Shape{2, 3, 5, 5});
  CHECK(NodesOf(g, "TransposeD").size() == 2);
}

TEST_CASE("nhwc_layout: constants of broadcasting ops and concat axes follow the layout", "[nhwc_layout]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 2, 4, 4});
  Node* a = Conv(g, x, Filter(g, 3, 2, 3));
  Node* b = Conv(g, x, Filter(g, 3, 2, 1), 1);
  Node* concat = g.AddNode("ConcatD", "concat", {a->output(0), b->output(0)});
  concat->attrs().Set("concat_dim", int64_t{1});
  concat->attrs().Set("N", int64_t{2});
  Tensor scale = Tensor::FromVector<float>(DataType::kFloat, Shape{6, 1, 1}, {1, 2, 3, 4, 5, 6});
  Node* mul = g.AddNode("Mul", "mul", {concat->output(0), g.AddConstant("scale", scale)});
  Node* last = Conv(g, mul->output(0), Filter(g, 2, 6, 1), 1);
  g.SetOutputs({last->output(0)});

  REQUIRE(Compile(g));
  CHECK(NodesOf(g, "TransposeD").size() == 2);
  const std::vector<Node*> concats = NodesOf(g, "ConcatD");
  REQUIRE(concats.size() == 1);
  CHECK(concats[0]->attrs().GetInt("concat_dim") == 3);
  CHECK(concats[0]->output(0)->shape() == Shape{1, 4, 4, 6});
  const std::vector<Node*> muls = NodesOf(g, "Mul");
  REQUIRE(muls.size() == 1);
  const Tensor* permuted = muls[0]->input(1)->constant();
  REQUIRE(permuted != nullptr);
  CHECK(permuted->shape() == Shape{1, 1, 1, 6});
  CHECK(std::vector<float>(permuted->data_as<float>(), permuted->data_as<float>() + 6) ==
        std::vector<float>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("nhwc_layout: a binary op over a convolution and the convolution's own input reads its transpose",
          "[nhwc_layout]") {
  // x reaches NHWC through a transpose (for the convolution); the residual Add
  // reuses that transpose rather than mistaking it for a constant to permute.
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 2, 4, 4});
  Node* conv = Conv(g, x, Filter(g, 2, 2, 3));
  Node* add = g.AddNode("Add", "residual", {conv->output(0), x});
  g.SetOutputs({add->output(0)});

  REQUIRE(Compile(g));
  REQUIRE(add->input(0) == conv->output(0));
  CHECK(IsTranspose(add->input(1)->producer(), kToNhwc));
  CHECK(add->input(1) == conv->input(0));
  CHECK(add->output(0)->shape() == Shape{1, 4, 4, 2});
}

TEST_CASE("nhwc_layout: nodes without an NHWC kernel and other devices are left alone", "[nhwc_layout]") {
  SECTION("float16 convolution") {
    Graph g;
    Value* x = g.AddInput("x", DataType::kFloat16, Shape{1, 4, 8, 8});
    Node* conv = Conv(g, x, Filter(g, 4, 4, 3, DataType::kFloat16));
    g.SetOutputs({conv->output(0)});
    CHECK_FALSE(Compile(g));
    CHECK(NodesOf(g, "TransposeD").empty());
    CHECK(FormatOf(*conv) == "NCHW");
  }
  SECTION("high_performance: bfloat16 products") {
    Graph g;
    Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 4, 8, 8});
    Node* conv = Conv(g, x, Filter(g, 4, 4, 3));
    conv->attrs().Set("_op_impl_mode", std::string("high_performance"));
    g.SetOutputs({conv->output(0)});
    CHECK_FALSE(Compile(g));
    CHECK(FormatOf(*conv) == "NCHW");
  }
  SECTION("a runtime filter") {
    Graph g;
    Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 4, 8, 8});
    Node* conv = Conv(g, x, g.AddInput("w", DataType::kFloat, Shape{4, 4, 3, 3}));
    g.SetOutputs({conv->output(0)});
    CHECK_FALSE(Compile(g));
  }
  SECTION("a pooling whose input is not NHWC already") {
    Graph g;
    Value* x = g.AddInput("x", DataType::kFloat, Shape{1, 4, 8, 8});
    Node* pool = g.AddNode("MaxPoolV3", "pool", {x});
    pool->attrs().Set("ksize", std::vector<int64_t>{1, 1, 2, 2});
    pool->attrs().Set("strides", std::vector<int64_t>{1, 1, 2, 2});
    g.SetOutputs({pool->output(0)});
    CHECK_FALSE(Compile(g));
  }
}

}  // namespace
}  // namespace ge
