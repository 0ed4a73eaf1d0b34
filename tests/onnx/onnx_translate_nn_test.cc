// 1-D and 3-D windows, Resize/Upsample, LRN, LayerNormalization's statistics
// and the norm-like reductions: how the importer maps them to ge ops.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

std::vector<float> Zeros(int64_t count) { return std::vector<float>(static_cast<size_t>(count), 0.0f); }

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("1-D Conv runs as Conv2D of height 1 between Unsqueeze and Squeeze") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 2, 9}).Output("y", {1, 4, 5});
  b.Initializer(OnnxFloatTensor("w", {4, 2, 3}, Zeros(24)));
  auto& conv = b.Node("Conv", {"x", "w"}, {"y"}, "conv1d");
  SetAttr(conv, "pads", Ints{1, 2});
  SetAttr(conv, "strides", Ints{2});
  auto graph = b.Import();
  Node* node = graph->FindNode("conv1d");
  REQUIRE(node);
  CHECK(node->op_type() == "Conv2D");
  CHECK(node->attrs().GetInts("pads") == Ints{0, 0, 1, 2});
  CHECK(node->attrs().GetInts("strides") == Ints{1, 1, 1, 2});
  CHECK(node->input(0)->producer()->op_type() == "Unsqueeze");
  CHECK(node->input(1)->producer()->op_type() == "Unsqueeze");
  CHECK(graph->outputs()[0]->producer()->op_type() == "Squeeze");
}

TEST_CASE("3-D Conv, ConvTranspose and pooling map to the NCDHW ops") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 2, 4, 5, 6}).Output("c", {1, 3, 4, 5, 6}).Output("t", {1, 3, 5, 6, 7}).Output("m", {1, 2, 2, 2, 3});
  b.Output("a", {1, 2, 4, 5, 6});
  b.Initializer(OnnxFloatTensor("w", {3, 2, 3, 3, 3}, Zeros(162)));
  b.Initializer(OnnxFloatTensor("wt", {2, 3, 2, 2, 2}, Zeros(48)));
  SetAttr(b.Node("Conv", {"x", "w"}, {"c"}, "conv"), "auto_pad", std::string("SAME_UPPER"));
  b.Node("ConvTranspose", {"x", "wt"}, {"t"}, "deconv");
  auto& max = b.Node("MaxPool", {"x"}, {"m"}, "max");
  SetAttr(max, "kernel_shape", Ints{2, 2, 2});
  SetAttr(max, "strides", Ints{2, 2, 2});
  auto& avg = b.Node("AveragePool", {"x"}, {"a"}, "avg");
  SetAttr(avg, "kernel_shape", Ints{3, 3, 3});
  SetAttr(avg, "pads", Ints{1, 1, 1, 1, 1, 1});
  SetAttr(avg, "count_include_pad", int64_t{1});
  auto graph = b.Import();
  Node* conv = graph->FindNode("conv");
  CHECK(conv->op_type() == "Conv3D");
  CHECK(conv->attrs().GetInts("pads") == Ints{1, 1, 1, 1, 1, 1});
  CHECK(conv->attrs().GetString("data_format") == "NCDHW");
  Node* deconv = graph->FindNode("deconv");
  CHECK(deconv->op_type() == "Conv3DTranspose");
  CHECK(deconv->input(0)->producer()->op_type() == "Const");
  CHECK(graph->FindNode("max")->op_type() == "MaxPool3D");
  CHECK(graph->FindNode("max")->attrs().GetInts("ksize") == Ints{1, 1, 2, 2, 2});
  CHECK(graph->FindNode("avg")->op_type() == "AvgPool3D");
  CHECK(graph->FindNode("avg")->attrs().GetBool("count_include_pad"));
}

TEST_CASE("Resize keeps its attributes, empty scales are absent, Upsample is asymmetric") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 1, 2, 2}).Output("r", {1, 1, 4, 6});
  b.Initializer(OnnxFloatTensor("no_scales", {0}, {}));
  b.Initializer(OnnxInt64Tensor("sizes", {4}, {1, 1, 4, 6}));
  auto& resize = b.Node("Resize", {"x", "", "no_scales", "sizes"}, {"r"}, "resize");
  SetAttr(resize, "mode", std::string("cubic"));
  SetAttr(resize, "coordinate_transformation_mode", std::string("align_corners"));
  SetAttr(resize, "exclude_outside", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("resize");
  CHECK(node->op_type() == "Resize");
  CHECK(node->input(2) == nullptr);
  CHECK(node->input(3) != nullptr);
  CHECK(node->attrs().GetString("mode") == "cubic");
  CHECK(node->attrs().GetString("coordinate_transformation_mode") == "align_corners");
  CHECK(node->attrs().GetInt("exclude_outside") == 1);

  OnnxModelBuilder old(8);
  old.Input("x", {1, 1, 2, 2}).Output("u", {1, 1, 4, 4});
  auto& upsample = old.Node("Upsample", {"x"}, {"u"}, "up");
  upsample.add_attribute()->CopyFrom([] {
    onnx::AttributeProto scales;
    scales.set_name("scales");
    scales.set_type(onnx::AttributeProto::FLOATS);
    for (float s : {1.0f, 1.0f, 2.0f, 2.0f}) scales.add_floats(s);
    return scales;
  }());
  auto old_graph = old.Import();
  Node* up = old_graph->FindNode("up");
  CHECK(up->op_type() == "Resize");
  CHECK(up->attrs().GetString("coordinate_transformation_mode") == "asymmetric");
  CHECK(up->attrs().GetString("nearest_mode") == "floor");
  CHECK(up->input(2)->producer()->op_type() == "Const");
}

TEST_CASE("LRN takes depth_radius and alpha / size, even sizes are refused") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 5, 2, 2}).Output("y", {1, 5, 2, 2});
  auto& lrn = b.Node("LRN", {"x"}, {"y"}, "lrn");
  SetAttr(lrn, "size", int64_t{3});
  SetAttr(lrn, "alpha", 0.3f);
  auto graph = b.Import();
  Node* node = graph->FindNode("lrn");
  CHECK(node->attrs().GetInt("depth_radius") == 1);
  CHECK(node->attrs().GetFloat("alpha") == Approx(0.1f));
  CHECK(node->attrs().GetFloat("beta") == Approx(0.75f));

  OnnxModelBuilder even(13);
  even.Input("x", {1, 5, 2, 2}).Output("y", {1, 5, 2, 2});
  SetAttr(even.Node("LRN", {"x"}, {"y"}, "even_lrn"), "size", int64_t{2});
  CHECK_THROWS_WITH(even.Import(), Catch::Contains("even_lrn") && Catch::Contains("odd"));
}

TEST_CASE("LayerNormalization's InvStdDev is 1/sqrt(variance + epsilon)") {
  OnnxModelBuilder b(17);
  b.Input("x", {2, 3}).Output("y", {2, 3}).Output("mean", {2, 1}).Output("inv", {2, 1});
  b.Initializer(OnnxFloatTensor("scale", {3}, Zeros(3)));
  b.Node("LayerNormalization", {"x", "scale"}, {"y", "mean", "inv"}, "ln");
  auto graph = b.Import();
  Node* ln = graph->FindNode("ln");
  REQUIRE(ln->num_outputs() == 3);
  CHECK(graph->outputs()[1]->producer() == ln);
  CHECK(graph->outputs()[2]->producer()->op_type() == "Reciprocal");
}

TEST_CASE("ReduceL2 and ReduceLogSumExp map to their D ops with axes and keepdims") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3, 4}).Output("l2", {2, 1, 4}).Output("lse", {3});
  SetAttr(b.Node("ReduceL2", {"x"}, {"l2"}, "l2"), "axes", Ints{-2});
  auto& lse = b.Node("ReduceLogSumExp", {"x"}, {"lse"}, "lse");
  SetAttr(lse, "axes", Ints{0, 2});
  SetAttr(lse, "keepdims", int64_t{0});
  auto graph = b.Import();
  CHECK(graph->FindNode("l2")->op_type() == "ReduceL2D");
  CHECK(graph->FindNode("l2")->attrs().GetInts("axes") == Ints{1});
  CHECK(graph->FindNode("l2")->attrs().GetBool("keep_dims"));
  CHECK(graph->FindNode("lse")->op_type() == "ReduceLogSumExpD");
  CHECK_FALSE(graph->FindNode("lse")->attrs().GetBool("keep_dims"));
}

}  // namespace ge::test
