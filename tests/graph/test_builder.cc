// GraphBuilder: eager inference, naming, error handling and Build().
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/error.h"

using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;

namespace {

ge::Tensor Zeros(Shape shape) { return ge::Tensor(DataType::kFloat, std::move(shape)); }

}  // namespace

TEST_CASE("GraphBuilder builds conv -> relu -> flatten -> matmul -> softmax with shapes known at once") {
  ge::GraphBuilder b("tiny");
  ge::Value* x = b.Input("x", DataType::kFloat, {1, 3, 8, 8});
  ge::Value* w = b.Constant("w", Zeros({4, 3, 3, 3}));
  ge::Value* bias = b.Constant("b", Zeros({4}));
  ge::Value* conv = b.Conv2D(x, w, bias, {.strides = {2, 2}, .pads = {1, 1, 1, 1}});
  CHECK(conv->shape() == Shape{1, 4, 4, 4});  // (8 + 2 - 3) / 2 + 1 = 4
  ge::Value* flat = b.Flatten(b.Relu(conv));
  CHECK(flat->shape() == Shape{1, 64});
  ge::Value* logits = b.MatMul(flat, b.Constant("fc", Zeros({64, 10})));
  ge::Value* probs = b.Softmax(logits);
  CHECK(probs->shape() == Shape{1, 10});
  CHECK(probs->dtype() == DataType::kFloat);
  b.Output(probs);

  std::unique_ptr<ge::Graph> graph = b.Build();
  REQUIRE(graph != nullptr);
  CHECK(graph->name() == "tiny");
  CHECK(graph->outputs() == std::vector<ge::Value*>{probs});
  REQUIRE(graph->FindNode("Conv2D_0") != nullptr);
  const ge::Node* conv_node = graph->FindNode("Conv2D_0");
  CHECK(conv_node->attrs().GetInts("strides") == Ints{1, 1, 2, 2});
  CHECK(conv_node->attrs().GetInts("dilations") == Ints{1, 1, 1, 1});
  CHECK(conv_node->attrs().GetString("data_format") == "NCHW");  // default filled in
  CHECK(graph->FindNode("MatMulV2_0") != nullptr);
  CHECK(graph->FindNode("SoftmaxV2_0")->attrs().GetInts("axes") == Ints{-1});
}

TEST_CASE("GraphBuilder generates unique names and honours given ones") {
  ge::GraphBuilder b;
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 2});
  ge::Value* r0 = b.Relu(x);
  ge::Value* r1 = b.Relu(r0);
  ge::Value* named = b.Relu(r1, "last");
  CHECK(r0->producer()->name() == "Relu_0");
  CHECK(r1->producer()->name() == "Relu_1");
  CHECK(named->producer()->name() == "last");
  CHECK_THROWS_WITH(b.Relu(x, "last"), Catch::Contains("'last' is already used"));
  ge::Value* taken = b.Relu(x, "Relu_2");
  CHECK(b.Relu(taken)->producer()->name() == "Relu_3");  // skips the name the user took
}

TEST_CASE("GraphBuilder throws at the bad call and leaves the graph as it was") {
  ge::GraphBuilder b;
  ge::Value* a = b.Input("a", DataType::kFloat, {4, 3});
  ge::Value* c = b.Input("c", DataType::kFloat, {4, 5});
  try {
    b.MatMul(a, c, nullptr, false, false, "mm");
    FAIL("expected an error");
  } catch (const ge::Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("node 'mm' (MatMulV2)") && Catch::Contains("[4,3]"));
  }
  // The failed node is gone: its name is free again and Build sees only valid nodes.
  ge::Value* ok = b.MatMul(a, b.Transpose(c, {1, 0}), nullptr, true, true, "mm");
  CHECK(ok->shape() == Shape{3, 5});

  CHECK_THROWS_WITH(b.Reshape(a, {5, -1}, "bad_reshape"), Catch::Contains("node 'bad_reshape' (Reshape)"));
  CHECK(b.Reshape(a, {0, -1}, "bad_reshape")->shape() == Shape{4, 3});  // its shape Const was removed too

  CHECK_THROWS_AS(b.Op("NoSuchOp", {a}), ge::Error);
  CHECK_THROWS_WITH(b.Add(a, c), Catch::Contains("not broadcastable"));
  b.Output(ok);
  std::unique_ptr<ge::Graph> graph = b.Build();
  CHECK(graph->FindNode("mm") != nullptr);
}

TEST_CASE("GraphBuilder helpers set the documented attributes") {
  ge::GraphBuilder b;
  ge::Value* x = b.Input("x", DataType::kFloat, {1, 2, 7, 7});
  ge::Value* pooled = b.MaxPool(x, {.kernel = {3, 3}, .strides = {2, 2}, .pads = {1, 1, 1, 1}, .ceil_mode = true});
  CHECK(pooled->shape() == Shape{1, 2, 4, 4});
  CHECK(pooled->producer()->attrs().GetInts("ksize") == Ints{1, 1, 3, 3});
  ge::Value* avg = b.AvgPool(x, {}, false);
  CHECK(avg->shape() == Shape{1, 2, 3, 3});
  CHECK_FALSE(avg->producer()->attrs().GetBool("exclusive"));
  ge::Value* cat = b.Concat({x, x}, 1);
  CHECK(cat->shape() == Shape{1, 4, 7, 7});
  CHECK(cat->producer()->attrs().GetInt("N") == 2);
  ge::Value* ln = b.LayerNorm(x, b.Constant("g", Zeros({7})), b.Constant("bt", Zeros({7})));
  CHECK(ln->producer()->attrs().GetInt("begin_norm_axis") == -1);
  CHECK(b.BatchMatMul(x, x, false, true)->shape() == Shape{1, 2, 7, 7});
  CHECK(b.Cast(x, DataType::kFloat16)->dtype() == DataType::kFloat16);
  CHECK(b.Gelu(b.Tanh(b.Sigmoid(b.Div(b.Mul(b.Sub(x, x), x), x))))->shape() == Shape{1, 2, 7, 7});
  std::vector<ge::Value*> parts =
      b.Op("SplitVD", {x}, {{"size_splits", Ints{3, 4}}, {"split_dim", int64_t{2}}, {"num_split", int64_t{2}}}, 2);
  REQUIRE(parts.size() == 2);
  CHECK(parts[1]->shape() == Shape{1, 2, 4, 7});
  b.Outputs(parts);
  CHECK(b.Build()->outputs().size() == 2);
}

TEST_CASE("GraphBuilder::Build needs outputs and runs once") {
  ge::GraphBuilder b;
  ge::Value* x = b.Input("x", DataType::kFloat, {2});
  CHECK_THROWS_WITH(b.Build(), Catch::Contains("no outputs"));
  CHECK_THROWS_WITH(b.Input("y", DataType::kUndefined, {2}), Catch::Contains("undefined"));
  b.Output(b.Relu(x));
  CHECK(b.Build() != nullptr);
  CHECK_THROWS_WITH(b.Build(), Catch::Contains("already built"));
  CHECK_THROWS_AS(b.Relu(x), ge::Error);
}

TEST_CASE("GraphBuilder rejects values of another builder") {
  ge::GraphBuilder b1;
  ge::GraphBuilder b2;
  ge::Value* x1 = b1.Input("x", DataType::kFloat, {2});
  ge::Value* x2 = b2.Input("x", DataType::kFloat, {2});
  CHECK_THROWS_WITH(b1.Add(x1, x2, "sum"), Catch::Contains("node 'sum' (Add)") && Catch::Contains("another graph"));
  CHECK_THROWS_WITH(b1.Output(x2), Catch::Contains("this builder"));
}
