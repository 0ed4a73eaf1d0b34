// Opsets 1-6: legacy broadcasting (broadcast/axis, PRelu's per-channel
// slope), Reshape's shape attribute, Concat's default axis, Cast's string
// dtype, Dropout's is_test, weights listed as graph inputs.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("Opset 6 Add with broadcast and axis aligns B at the axis") {
  OnnxModelBuilder b(6);
  b.Input("a", {2, 3, 4, 5}).Input("c", {3, 4}).Output("y", {2, 3, 4, 5});
  auto& add = b.Node("Add", {"a", "c"}, {"y"}, "add");
  SetAttr(add, "broadcast", int64_t{1});
  SetAttr(add, "axis", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("add");
  CHECK(node->op_type() == "Add");
  Node* align = node->input(1)->producer();
  REQUIRE(align != nullptr);
  CHECK(align->op_type() == "Unsqueeze");
  CHECK(align->attrs().GetInts("axes") == Ints{2});  // [3, 4] -> [3, 4, 1] lines up with a's dims 1-3
  CHECK(align->input(0)->name() == "c");
}

TEST_CASE("Opset 6 Mul with broadcast but no axis uses numpy's suffix rule") {
  OnnxModelBuilder b(6);
  b.Input("a", {2, 3}).Input("c", {3}).Output("y", {2, 3});
  SetAttr(b.Node("Mul", {"a", "c"}, {"y"}, "mul"), "broadcast", int64_t{1});
  auto graph = b.Import();
  CHECK(graph->FindNode("mul")->input(1)->name() == "c");
  CHECK(NodesOfType(*graph, "Unsqueeze").empty());
}

TEST_CASE("Opset 6 Sub refuses a B that does not fit A at the axis") {
  OnnxModelBuilder b(6);
  b.Input("a", {2, 3}).Input("c", {3, 4}).Output("y", {-1, -1});
  auto& sub = b.Node("Sub", {"a", "c"}, {"y"}, "sub");
  SetAttr(sub, "broadcast", int64_t{1});
  SetAttr(sub, "axis", int64_t{1});
  CHECK_THROWS_WITH(b.Import(), Catch::Contains("'sub'") && Catch::Contains("does not fit"));
}

TEST_CASE("Opset 6 PRelu with a 1-D slope applies it per channel") {
  OnnxModelBuilder b(6);
  b.Input("x", {2, 3, 4}).Input("slope", {3}).Output("y", {2, 3, 4});
  b.Node("PRelu", {"x", "slope"}, {"y"}, "prelu");
  auto graph = b.Import();
  Node* align = graph->FindNode("prelu")->input(1)->producer();
  REQUIRE(align != nullptr);
  CHECK(align->op_type() == "Unsqueeze");
  CHECK(align->attrs().GetInts("axes") == Ints{1});
}

TEST_CASE("Opset 4 Reshape takes the shape attribute as a Const input") {
  OnnxModelBuilder b(4);
  b.Input("x", {2, 3, 4}).Output("y", {4, 6});
  SetAttr(b.Node("Reshape", {"x"}, {"y"}, "reshape"), "shape", Ints{4, -1});
  auto graph = b.Import();
  Node* reshape = graph->FindNode("reshape");
  CHECK(reshape->op_type() == "Reshape");
  REQUIRE(reshape->num_inputs() == 2);
  REQUIRE(reshape->input(1)->constant() != nullptr);
  CHECK(reshape->input(1)->constant()->ToInt64Vector() == Ints{4, -1});
}

TEST_CASE("Opset 3 Concat without axis concatenates along axis 1") {
  OnnxModelBuilder b(3);
  b.Input("x", {2, 3}).Output("y", {2, 6});
  b.Node("Concat", {"x", "x"}, {"y"}, "cat");
  auto graph = b.Import();
  CHECK(graph->FindNode("cat")->attrs().GetInt("concat_dim") == 1);
}

TEST_CASE("Opset 5 Cast names the target dtype as a string") {
  OnnxModelBuilder b(5);
  b.Input("x", {2}).Output("y", {2}, kOnnxInt64);
  SetAttr(b.Node("Cast", {"x"}, {"y"}, "cast"), "to", std::string("INT64"));
  auto graph = b.Import();
  CHECK(graph->FindNode("cast")->attrs().GetInt("dst_type") == static_cast<int64_t>(DataType::kInt64));

  OnnxModelBuilder bad(5);
  bad.Input("x", {2}).Output("y", {2});
  SetAttr(bad.Node("Cast", {"x"}, {"y"}, "cast"), "to", std::string("QUATERNION"));
  CHECK_THROWS_WITH(bad.Import(), Catch::Contains("'cast'") && Catch::Contains("QUATERNION"));
}

TEST_CASE("Opset 6 Dropout is the identity when is_test = 1 and refused in training") {
  OnnxModelBuilder b(6);
  b.Input("x", {2}).Output("y", {2});
  SetAttr(b.Node("Dropout", {"x"}, {"y"}, "drop"), "is_test", int64_t{1});
  auto graph = b.Import();
  CHECK(graph->FindNode("drop")->op_type() == "Identity");

  OnnxModelBuilder training(6);
  training.Input("x", {2}).Output("y", {2});
  training.Node("Dropout", {"x"}, {"y"}, "drop");
  CHECK_THROWS_WITH(training.Import(), Catch::Contains("'drop'") && Catch::Contains("is_test"));
}

TEST_CASE("Opset 1 models import: Relu's consumed_inputs is ignored") {
  OnnxModelBuilder b(1);
  b.Input("x", {2}).Output("y", {2});
  SetAttr(b.Node("Relu", {"x"}, {"y"}, "relu"), "consumed_inputs", Ints{0});
  auto graph = b.Import();
  CHECK(graph->FindNode("relu")->op_type() == "Relu");
}

TEST_CASE("A graph input with an initializer of the same name stays a constant") {
  // Exporters before IR version 4 list every weight among the graph inputs too.
  OnnxModelBuilder b(6);
  b.Input("x", {2}).Input("w", {2}).Output("y", {2});
  b.Initializer(OnnxFloatTensor("w", {2}, {1.0f, 2.0f}));
  b.Node("Mul", {"x", "w"}, {"y"}, "mul");
  auto graph = b.Import();
  REQUIRE(graph->inputs().size() == 1);
  CHECK(graph->inputs()[0]->name() == "x");
  REQUIRE(graph->FindNode("mul")->input(1)->constant() != nullptr);
}

}  // namespace ge::test
