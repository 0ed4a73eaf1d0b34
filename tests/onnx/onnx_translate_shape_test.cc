// Shape-manipulating and tensor ops, node and value naming.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("Split opset 11 takes the split attribute") {
  OnnxModelBuilder b(11);
  b.Input("x", {6, 2}).Output("a", {2, 2}).Output("b", {4, 2});
  auto& split = b.Node("Split", {"x"}, {"a", "b"}, "split");
  SetAttr(split, "split", Ints{2, 4});
  SetAttr(split, "axis", int64_t{-2});
  auto graph = b.Import();
  Node* node = graph->FindNode("split");
  CHECK(node->op_type() == "SplitVD");
  CHECK(node->attrs().GetInts("size_splits") == Ints{2, 4});
  CHECK(node->attrs().GetInt("split_dim") == 0);
  CHECK(node->attrs().GetInt("num_split") == 2);
  REQUIRE(node->num_outputs() == 2);
  CHECK(node->output(0)->name() == "a");
  CHECK(node->output(1)->name() == "b");
  CHECK(graph->outputs()[1] == node->output(1));
}

TEST_CASE("Split opset 13 takes a constant split input") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 7}).Output("a", {2, 3}).Output("b", {2, 4});
  b.Initializer(OnnxInt64Tensor("sizes", {2}, {3, 4}));
  SetAttr(b.Node("Split", {"x", "sizes"}, {"a", "b"}, "split"), "axis", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("split");
  CHECK(node->num_inputs() == 1);
  CHECK(node->attrs().GetInts("size_splits") == Ints{3, 4});
  CHECK(node->attrs().GetInt("split_dim") == 1);
}

TEST_CASE("Split without sizes splits equally by the number of outputs") {
  OnnxModelBuilder b(13);
  b.Input("x", {6}).Output("a", {2}).Output("b", {2}).Output("c", {2});
  b.Node("Split", {"x"}, {"a", "b", "c"}, "split");
  auto graph = b.Import();
  CHECK(graph->FindNode("split")->attrs().GetInts("size_splits") == Ints{2, 2, 2});
  CHECK(graph->FindNode("split")->attrs().GetInt("num_split") == 3);

  OnnxModelBuilder uneven(13);
  uneven.Input("x", {7}).Output("a", {-1}).Output("b", {-1});
  uneven.Node("Split", {"x"}, {"a", "b"}, "split");
  CHECK_THROWS_WITH(uneven.Import(), Catch::Contains("'split'") && Catch::Contains("equal parts"));
}

TEST_CASE("Slice opset 9 turns attributes into Const inputs of StridedSliceV2") {
  OnnxModelBuilder b(9);
  b.Input("x", {4, 5}).Output("y", {2, 5});
  auto& slice = b.Node("Slice", {"x"}, {"y"}, "slice");
  SetAttr(slice, "starts", Ints{1});
  SetAttr(slice, "ends", Ints{3});
  SetAttr(slice, "axes", Ints{0});
  auto graph = b.Import();
  Node* node = graph->FindNode("slice");
  CHECK(node->op_type() == "StridedSliceV2");
  REQUIRE(node->num_inputs() == 4);
  CHECK(node->input(1)->constant()->ToInt64Vector() == Ints{1});
  CHECK(node->input(2)->constant()->ToInt64Vector() == Ints{3});
  CHECK(node->input(3)->constant()->ToInt64Vector() == Ints{0});
}

TEST_CASE("Slice opset 13 passes its inputs with absent axes as nullptr") {
  OnnxModelBuilder b(13);
  b.Input("x", {4, 5}).Output("y", {4, 2});
  b.Initializer(OnnxInt64Tensor("starts", {2}, {0, 0}));
  b.Initializer(OnnxInt64Tensor("ends", {2}, {4, 4}));
  b.Initializer(OnnxInt64Tensor("steps", {2}, {1, 2}));
  b.Node("Slice", {"x", "starts", "ends", "", "steps"}, {"y"}, "slice");
  auto graph = b.Import();
  Node* node = graph->FindNode("slice");
  REQUIRE(node->num_inputs() == 5);
  CHECK(node->input(3) == nullptr);
  CHECK(node->input(4)->name() == "steps");
}

TEST_CASE("Unsqueeze/Squeeze read axes from attributes before 13 and constant inputs after") {
  OnnxModelBuilder old_model(11);
  old_model.Input("x", {3}).Output("y", {1, 3, 1});
  SetAttr(old_model.Node("Unsqueeze", {"x"}, {"y"}, "unsq"), "axes", Ints{0, -1});
  auto old_graph = old_model.Import();
  CHECK(old_graph->FindNode("unsq")->attrs().GetInts("axes") == Ints{0, 2});

  OnnxModelBuilder b(13);
  b.Input("x", {1, 3, 1}).Output("y", {3});
  b.Initializer(OnnxInt64Tensor("axes", {2}, {0, 2}));
  b.Node("Squeeze", {"x", "axes"}, {"y"}, "sq");
  auto graph = b.Import();
  Node* node = graph->FindNode("sq");
  CHECK(node->op_type() == "Squeeze");
  CHECK(node->num_inputs() == 1);
  CHECK(node->attrs().GetInts("axis") == Ints{0, 2});
}

TEST_CASE("Unsqueeze 13 and Split 13 keep computed axes and sizes as inputs") {
  OnnxModelBuilder b(13);
  b.Input("x", {3}).Input("axes", {1}, kOnnxInt64).Input("sizes", {2}, kOnnxInt64);
  b.Output("y", {-1, -1}).Output("a", {-1}).Output("b", {-1});
  b.Node("Unsqueeze", {"x", "axes"}, {"y"}, "unsq");
  b.Node("Split", {"x", "sizes"}, {"a", "b"}, "split");
  auto graph = b.Import();
  Node* unsqueeze = graph->FindNode("unsq");
  REQUIRE(unsqueeze->num_inputs() == 2);
  CHECK(unsqueeze->input(1) == graph->inputs()[1]);
  CHECK(unsqueeze->attrs().GetInts("axes").empty());
  Node* split = graph->FindNode("split");
  REQUIRE(split->num_inputs() == 2);
  CHECK(split->input(1) == graph->inputs()[2]);
  CHECK(split->attrs().GetInt("num_split") == 2);
}

TEST_CASE("Transpose defaults to reversed dims and Concat Gather Flatten Reshape map their axes") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3, 4}).Output("t", {4, 3, 2}).Output("c", {2, 6, 4}).Output("g", {2, 2, 4})
      .Output("f", {6, 4}).Output("r", {4, 6});
  b.Node("Transpose", {"x"}, {"t"}, "tr");
  SetAttr(b.Node("Concat", {"x", "x"}, {"c"}, "cat"), "axis", int64_t{-2});
  b.Initializer(OnnxInt64Tensor("idx", {2}, {0, -1}));
  SetAttr(b.Node("Gather", {"x", "idx"}, {"g"}, "gather"), "axis", int64_t{1});
  SetAttr(b.Node("Flatten", {"x"}, {"f"}, "flat"), "axis", int64_t{-1});
  b.Initializer(OnnxInt64Tensor("shape", {2}, {4, -1}));
  b.Node("Reshape", {"x", "shape"}, {"r"}, "reshape");
  auto graph = b.Import();
  CHECK(graph->FindNode("tr")->op_type() == "TransposeD");
  CHECK(graph->FindNode("tr")->attrs().GetInts("perm") == Ints{2, 1, 0});
  Node* cat = graph->FindNode("cat");
  CHECK(cat->op_type() == "ConcatD");
  CHECK(cat->attrs().GetInt("concat_dim") == 1);
  CHECK(cat->attrs().GetInt("N") == 2);
  CHECK(graph->FindNode("gather")->op_type() == "GatherV2D");
  CHECK(graph->FindNode("gather")->attrs().GetInt("axis") == 1);
  CHECK(graph->FindNode("flat")->attrs().GetInt("axis") == 2);
  Node* reshape = graph->FindNode("reshape");
  REQUIRE(reshape->num_inputs() == 2);
  CHECK(reshape->input(1)->name() == "shape");
  CHECK(reshape->attrs().GetInt("allowzero") == 0);
}

TEST_CASE("Constant becomes Const and Cast carries the ge dtype value") {
  OnnxModelBuilder b(13);
  b.Input("x", {2}).Output("y", {2}, kOnnxInt64);
  SetAttr(b.Node("Constant", {}, {"k"}, "two"), "value", OnnxFloatTensor("", {1}, {2.0f}));
  b.Node("Mul", {"x", "k"}, {"scaled"}, "mul");
  SetAttr(b.Node("Cast", {"scaled"}, {"y"}, "cast"), "to", int64_t{onnx::TensorProto::INT64});
  auto graph = b.Import();
  Node* constant = graph->FindNode("two");
  CHECK(constant->op_type() == "Const");
  CHECK(constant->output(0)->name() == "k");
  CHECK(constant->output(0)->constant()->values<float>()[0] == 2.0f);
  CHECK(graph->FindNode("mul")->input(1) == constant->output(0));
  Node* cast = graph->FindNode("cast");
  CHECK(cast->attrs().GetInt("dst_type") == static_cast<int64_t>(DataType::kInt64));
}

TEST_CASE("Unnamed nodes are named <OpType>_<index> and duplicates stay unique") {
  OnnxModelBuilder b(13);
  b.Input("x", {2}).Output("y", {2});
  b.Node("Relu", {"x"}, {"a"});
  b.Node("Sigmoid", {"a"}, {"b"}, "act");
  b.Node("Tanh", {"b"}, {"y"}, "act");
  auto graph = b.Import();
  Node* relu = graph->FindNode("Relu_0");
  REQUIRE(relu);
  CHECK(relu->op_type() == "Relu");
  CHECK(relu->output(0)->name() == "a");
  Node* first = graph->FindNode("act");
  REQUIRE(first);
  CHECK(first->op_type() == "Sigmoid");
  Node* second = graph->outputs()[0]->producer();
  CHECK(second->op_type() == "Tanh");
  CHECK(second->name() != "act");
  CHECK(graph->outputs()[0]->name() == "y");
}

}  // namespace ge::test
