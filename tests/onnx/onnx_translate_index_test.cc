// Translations of the index, layout and generator ops whose ge form differs
// from the ONNX node: helper nodes, attributes turned into inputs, renamed
// attributes.
#include <catch2/catch.hpp>

#include "onnx_model_builder.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("ArgMax with keepdims adds an Unsqueeze after ArgMaxV2") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3, 4}).Output("y", {2, 1, 4}, kOnnxInt64);
  auto& arg = b.Node("ArgMax", {"x"}, {"y"}, "arg");
  SetAttr(arg, "axis", int64_t{-2});
  SetAttr(arg, "select_last_index", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("arg");
  REQUIRE(node->op_type() == "ArgMaxV2");
  CHECK(node->input(1)->constant()->ToInt64Vector() == Ints{1});
  CHECK(node->attrs().GetBool("select_last_index"));
  const auto unsqueeze = NodesOfType(*graph, "Unsqueeze");
  REQUIRE(unsqueeze.size() == 1);
  CHECK(unsqueeze[0]->attrs().GetInts("axes") == Ints{1});
  CHECK(graph->outputs()[0] == unsqueeze[0]->output(0));
}

TEST_CASE("Compress gathers the positions NonZero finds") {
  OnnxModelBuilder b(11);
  b.Input("x", {3, 2}).Input("c", {3}, onnx::TensorProto::BOOL).Output("y", {-1, 2});
  SetAttr(b.Node("Compress", {"x", "c"}, {"y"}, "compress"), "axis", int64_t{0});
  auto graph = b.Import();
  Node* gather = graph->FindNode("compress");
  REQUIRE(gather->op_type() == "GatherV2D");
  CHECK(gather->attrs().GetInt("axis") == 0);
  CHECK(gather->input(1)->producer()->op_type() == "Reshape");
  CHECK(NodesOfType(*graph, "NonZero").size() == 1);
}

TEST_CASE("Pad before opset 11 turns pads and value into Const inputs of PadV3") {
  OnnxModelBuilder b(2);
  b.Input("x", {2, 3}).Output("y", {3, 6});
  auto& pad = b.Node("Pad", {"x"}, {"y"}, "pad");
  SetAttr(pad, "pads", Ints{0, 1, 1, 2});
  SetAttr(pad, "mode", std::string("reflect"));
  auto graph = b.Import();
  Node* node = graph->FindNode("pad");
  REQUIRE(node->op_type() == "PadV3");
  CHECK(node->input(1)->constant()->ToInt64Vector() == Ints{0, 1, 1, 2});
  CHECK(node->attrs().GetString("mode") == "reflect");
  CHECK_FALSE(node->attrs().GetBool("paddings_contiguous"));
}

TEST_CASE("OneHot splits values into on and off scalars") {
  OnnxModelBuilder b(11);
  b.Input("i", {4}, kOnnxInt64).Output("y", {4, 3});
  b.Initializer(OnnxInt64Tensor("depth", {}, {3}));
  b.Initializer(OnnxFloatTensor("values", {2}, {-1.0f, 1.0f}));
  b.Node("OneHot", {"i", "depth", "values"}, {"y"}, "oh");
  auto graph = b.Import();
  Node* node = graph->FindNode("oh");
  REQUIRE(node->op_type() == "OneHot");
  CHECK(node->input(2)->producer()->op_type() == "GatherV2D");
  CHECK(node->input(2)->producer()->input(1)->constant()->ToInt64Vector() == Ints{1});
  CHECK(node->input(3)->producer()->input(1)->constant()->ToInt64Vector() == Ints{0});
  CHECK(node->attrs().GetInt("axis") == -1);
}

TEST_CASE("Trilu picks Tril or Triu with the constant k as diagonal") {
  OnnxModelBuilder b(14);
  b.Input("x", {3, 3}).Output("y", {3, 3});
  b.Initializer(OnnxInt64Tensor("k", {}, {-1}));
  SetAttr(b.Node("Trilu", {"x", "k"}, {"y"}, "tri"), "upper", int64_t{0});
  auto graph = b.Import();
  Node* node = graph->FindNode("tri");
  CHECK(node->op_type() == "Tril");
  CHECK(node->attrs().GetInt("diagonal") == -1);
}

TEST_CASE("TopK before opset 10 makes k a Const input") {
  OnnxModelBuilder b(9);
  b.Input("x", {2, 5}).Output("v", {2, 2}).Output("i", {2, 2}, kOnnxInt64);
  auto& top = b.Node("TopK", {"x"}, {"v", "i"}, "top");
  SetAttr(top, "k", int64_t{2});
  SetAttr(top, "axis", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("top");
  REQUIRE(node->op_type() == "TopKV2");
  CHECK(node->input(1)->constant()->ToInt64Vector() == Ints{2});
  CHECK(node->attrs().GetInt("dim") == 1);
  CHECK(node->attrs().GetBool("largest"));
}

}  // namespace ge::test
