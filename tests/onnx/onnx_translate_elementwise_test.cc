// Elementwise translations that are more than a rename: variadic ops, Pow of
// mixed dtypes, Mod, BitShift, activations' attributes, Where, CastLike.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {

TEST_CASE("Mean of three inputs is two Adds and a Div by 3") {
  OnnxModelBuilder b(13);
  b.Input("a", {2, 3}).Input("b", {3}).Input("c", {2, 1}).Output("y", {2, 3});
  b.Node("Mean", {"a", "b", "c"}, {"y"}, "mean");
  auto graph = b.Import();
  CHECK(NodesOfType(*graph, "Add").size() == 2);
  Node* div = graph->FindNode("mean/mean");
  REQUIRE(div);
  CHECK(div->op_type() == "Div");
  REQUIRE(div->input(1)->constant());
  CHECK(div->input(1)->constant()->values<float>()[0] == 3.0f);
  CHECK(graph->outputs()[0]->producer() == div);
  CHECK(graph->outputs()[0]->shape() == Shape{2, 3});
}

TEST_CASE("Max of one input is an Identity, of two a Maximum") {
  OnnxModelBuilder b(13);
  b.Input("a", {4}).Input("b", {4}).Output("y", {4}).Output("z", {4});
  b.Node("Max", {"a"}, {"y"}, "one");
  b.Node("Max", {"a", "b"}, {"z"}, "two");
  auto graph = b.Import();
  CHECK(graph->FindNode("one")->op_type() == "Identity");
  CHECK(graph->FindNode("two")->op_type() == "Maximum");
}

TEST_CASE("Pow of an int base and a float exponent computes in float and casts back") {
  OnnxModelBuilder b(15);
  b.Input("x", {3}, onnx::TensorProto::INT32).Input("e", {3}).Output("y", {3}, onnx::TensorProto::INT32);
  b.Node("Pow", {"x", "e"}, {"y"}, "pow");
  auto graph = b.Import();
  Node* pow = graph->FindNode("pow");
  REQUIRE(pow);
  Node* base_cast = pow->input(0)->producer();
  CHECK(base_cast->op_type() == "Cast");
  CHECK(base_cast->attrs().GetInt("dst_type") == static_cast<int64_t>(DataType::kFloat));
  Node* result_cast = graph->outputs()[0]->producer();
  CHECK(result_cast->op_type() == "Cast");
  CHECK(result_cast->attrs().GetInt("dst_type") == static_cast<int64_t>(DataType::kInt32));
  CHECK(result_cast->input(0) == pow->output(0));

  OnnxModelBuilder f(15);
  f.Input("x", {3}).Input("e", {3}, kOnnxInt64).Output("y", {3});
  f.Node("Pow", {"x", "e"}, {"y"}, "pow");
  auto graph2 = f.Import();
  Node* pow2 = graph2->FindNode("pow");
  CHECK(pow2->input(1)->producer()->op_type() == "Cast");
  CHECK(graph2->outputs()[0]->producer() == pow2);
}

TEST_CASE("Mod picks FloorMod or Mod by fmod, BitShift by direction") {
  OnnxModelBuilder b(13);
  b.Input("a", {4}, kOnnxInt64).Input("b", {4}, kOnnxInt64).Output("m", {4}, kOnnxInt64).Output("f", {4}, kOnnxInt64);
  b.Node("Mod", {"a", "b"}, {"m"}, "floored");
  SetAttr(b.Node("Mod", {"a", "b"}, {"f"}, "truncated"), "fmod", int64_t{1});
  auto graph = b.Import();
  CHECK(graph->FindNode("floored")->op_type() == "FloorMod");
  CHECK(graph->FindNode("truncated")->op_type() == "Mod");

  OnnxModelBuilder s(13);
  s.Input("a", {4}, onnx::TensorProto::UINT8).Input("b", {4}, onnx::TensorProto::UINT8);
  s.Output("y", {4}, onnx::TensorProto::UINT8);
  SetAttr(s.Node("BitShift", {"a", "b"}, {"y"}, "shift"), "direction", std::string("RIGHT"));
  CHECK(s.Import()->FindNode("shift")->op_type() == "RightShift");

  OnnxModelBuilder bad(13);
  bad.Input("a", {4}, onnx::TensorProto::UINT8).Input("b", {4}, onnx::TensorProto::UINT8);
  bad.Output("y", {4}, onnx::TensorProto::UINT8);
  SetAttr(bad.Node("BitShift", {"a", "b"}, {"y"}, "shift"), "direction", std::string("UP"));
  CHECK_THROWS_WITH(bad.Import(), Catch::Contains("shift") && Catch::Contains("LEFT, RIGHT"));
}

TEST_CASE("Activations map their attributes with ONNX defaults") {
  OnnxModelBuilder b(13);
  b.Input("x", {4}).Output("y", {4}).Output("z", {4});
  b.Node("LeakyRelu", {"x"}, {"y"}, "leaky");
  SetAttr(b.Node("HardSigmoid", {"x"}, {"z"}, "hs"), "alpha", 0.25f);
  auto graph = b.Import();
  CHECK(graph->FindNode("leaky")->attrs().GetFloat("negative_slope") == 0.01f);
  CHECK(graph->FindNode("hs")->attrs().GetFloat("alpha") == 0.25f);
  CHECK(graph->FindNode("hs")->attrs().GetFloat("beta") == 0.5f);
}

TEST_CASE("Where is Select, comparisons give bool, CastLike casts to the target's dtype") {
  OnnxModelBuilder b(15);
  b.Input("a", {2, 3}).Input("b", {3}).Input("t", {1}, onnx::TensorProto::DOUBLE);
  b.Output("y", {2, 3}).Output("c", {2, 3}, onnx::TensorProto::DOUBLE);
  b.Node("GreaterOrEqual", {"a", "b"}, {"ge"}, "cmp");
  b.Node("Where", {"ge", "a", "b"}, {"y"}, "where");
  b.Node("CastLike", {"a", "t"}, {"c"}, "castlike");
  auto graph = b.Import();
  Node* cmp = graph->FindNode("cmp");
  CHECK(cmp->op_type() == "GreaterEqual");
  CHECK(cmp->output(0)->dtype() == DataType::kBool);
  Node* where = graph->FindNode("where");
  CHECK(where->op_type() == "Select");
  CHECK(where->input(0) == cmp->output(0));
  Node* cast = graph->FindNode("castlike");
  CHECK(cast->op_type() == "Cast");
  CHECK(cast->attrs().GetInt("dst_type") == static_cast<int64_t>(DataType::kDouble));
  CHECK(cast->num_inputs() == 1);
}

}  // namespace ge::test
