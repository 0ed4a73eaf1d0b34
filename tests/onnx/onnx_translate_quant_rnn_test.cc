// The quantization and recurrent translations: ONNX's inputs kept, window and
// recurrent attributes carried over.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;

void SetStrings(onnx::NodeProto& node, const std::string& name, const std::vector<std::string>& values) {
  onnx::AttributeProto* attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::STRINGS);
  for (const std::string& v : values) attr->add_strings(v);
}

}  // namespace

TEST_CASE("LSTM becomes CommonLSTM, a missing hidden_size comes from R, only requested outputs are bound") {
  OnnxModelBuilder b(14);
  b.Input("x", {5, 2, 3}).Output("y_h", {2, 2, 4});
  b.Initializer(OnnxFloatTensor("w", {2, 16, 3}, std::vector<float>(96, 0.1f)));
  b.Initializer(OnnxFloatTensor("r", {2, 16, 4}, std::vector<float>(128, 0.1f)));
  auto& lstm = b.Node("LSTM", {"x", "w", "r"}, {"", "y_h"}, "lstm1");
  SetAttr(lstm, "direction", std::string("bidirectional"));
  SetAttr(lstm, "clip", 3.0f);
  SetStrings(lstm, "activations", {"Sigmoid", "Tanh", "Tanh", "HardSigmoid", "Relu", "Elu"});
  auto graph = b.Import();
  Node* node = graph->FindNode("lstm1");
  REQUIRE(node);
  CHECK(node->op_type() == "CommonLSTM");
  CHECK(node->attrs().GetInt("hidden_size") == 4);
  CHECK(node->attrs().GetString("direction") == "bidirectional");
  CHECK(node->attrs().GetFloat("clip") == 3.0f);
  CHECK(node->attrs().GetStrings("activations").size() == 6);
  CHECK(graph->outputs()[0] == node->output(1));
  CHECK(node->output(1)->shape() == Shape({2, 2, 4}));
}

TEST_CASE("GRU keeps linear_before_reset and layout") {
  OnnxModelBuilder b(14);
  b.Input("x", {2, 5, 3}).Output("y", {2, 5, 1, 4});
  b.Initializer(OnnxFloatTensor("w", {1, 12, 3}, std::vector<float>(36, 0.1f)));
  b.Initializer(OnnxFloatTensor("r", {1, 12, 4}, std::vector<float>(48, 0.1f)));
  auto& gru = b.Node("GRU", {"x", "w", "r"}, {"y"}, "gru1");
  SetAttr(gru, "hidden_size", int64_t{4});
  SetAttr(gru, "linear_before_reset", int64_t{1});
  SetAttr(gru, "layout", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("gru1");
  REQUIRE(node);
  CHECK(node->op_type() == "CommonGRU");
  CHECK(node->attrs().GetInt("linear_before_reset") == 1);
  CHECK(node->attrs().GetInt("layout") == 1);
  CHECK(node->output(0)->shape() == Shape({2, 5, 1, 4}));
}

TEST_CASE("ConvInteger keeps its zero points and gets Conv2D's window attributes") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 4, 5, 5}, onnx::TensorProto::UINT8).Output("y", {1, 2, 3, 5}, onnx::TensorProto::INT32);
  b.Input("w", {2, 2, 3, 3}, onnx::TensorProto::UINT8);
  auto& conv = b.Node("ConvInteger", {"x", "w"}, {"y"}, "conv1");
  SetAttr(conv, "pads", Ints{0, 1, 0, 1});
  SetAttr(conv, "strides", Ints{2, 1});
  SetAttr(conv, "group", int64_t{2});
  auto graph = b.Import();
  Node* node = graph->FindNode("conv1");
  REQUIRE(node);
  CHECK(node->op_type() == "ConvInteger");
  CHECK(node->attrs().GetInts("pads") == Ints{0, 0, 1, 1});
  CHECK(node->attrs().GetInts("strides") == Ints{1, 1, 2, 1});
  CHECK(node->attrs().GetInt("groups") == 2);
  CHECK(node->output(0)->dtype() == DataType::kInt32);
  CHECK(node->output(0)->shape() == Shape({1, 2, 3, 5}));
}

TEST_CASE("QuantizeLinear carries axis, without a zero point it gives uint8") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3, 4}).Output("q", {2, 3, 4}, onnx::TensorProto::UINT8);
  b.Initializer(OnnxFloatTensor("s", {4}, {1.0f, 2.0f, 3.0f, 4.0f}));
  auto& q = b.Node("QuantizeLinear", {"x", "s"}, {"q"}, "q1");
  SetAttr(q, "axis", int64_t{-1});
  auto graph = b.Import();
  Node* node = graph->FindNode("q1");
  REQUIRE(node);
  CHECK(node->op_type() == "QuantizeLinear");
  CHECK(node->attrs().GetInt("axis") == -1);
  CHECK(node->output(0)->dtype() == DataType::kUInt8);
}

}  // namespace ge::test
