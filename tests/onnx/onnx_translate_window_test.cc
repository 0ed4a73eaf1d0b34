// Conv, ConvTranspose and pooling: the ONNX window attributes become the
// Ascend ones (pads [top, bottom, left, right], 4-element NCHW strides...).
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "onnx_model_builder.h"

namespace ge::test {
namespace {

std::vector<float> Zeros(int64_t count) { return std::vector<float>(static_cast<size_t>(count), 0.0f); }

using Ints = std::vector<int64_t>;

}  // namespace

TEST_CASE("Conv pads are reordered and strides/dilations become NCHW quadruples") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 2, 9, 10}).Output("y", {1, 4, 3, 3});
  b.Initializer(OnnxFloatTensor("w", {4, 1, 3, 3}, Zeros(36)));
  b.Initializer(OnnxFloatTensor("bias", {4}, Zeros(4)));
  auto& conv = b.Node("Conv", {"x", "w", "bias"}, {"y"}, "conv1");
  // ONNX pads [top, left, bottom, right] = [1, 2, 3, 4]
  SetAttr(conv, "pads", Ints{1, 2, 3, 4});
  SetAttr(conv, "strides", Ints{4, 6});
  SetAttr(conv, "dilations", Ints{2, 1});
  SetAttr(conv, "group", int64_t{2});
  auto graph = b.Import();

  Node* node = graph->FindNode("conv1");
  REQUIRE(node);
  CHECK(node->op_type() == "Conv2D");
  REQUIRE(node->num_inputs() == 3);
  CHECK(node->input(0)->name() == "x");
  CHECK(node->input(1)->name() == "w");
  CHECK(node->input(2)->name() == "bias");
  CHECK(node->attrs().GetInts("pads") == Ints{1, 3, 2, 4});
  CHECK(node->attrs().GetInts("strides") == Ints{1, 1, 4, 6});
  CHECK(node->attrs().GetInts("dilations") == Ints{1, 1, 2, 1});
  CHECK(node->attrs().GetInt("groups") == 2);
  CHECK(node->attrs().GetString("data_format") == "NCHW");
  REQUIRE(graph->outputs().size() == 1);
  CHECK(graph->outputs()[0]->name() == "y");
  CHECK(graph->outputs()[0]->producer() == node);
}

TEST_CASE("Conv auto_pad SAME_UPPER and SAME_LOWER resolve to explicit pads") {
  // H = 5, kernel 4, stride 2: out 3, total padding (3-1)*2 + 4 - 5 = 3 (odd).
  // W = 6: out 3, total padding 2*2 + 4 - 6 = 2.
  auto pads_for = [](const std::string& auto_pad, const Ints& output_dims) {
    OnnxModelBuilder b(11);
    b.Input("x", {1, 1, 5, 6}).Output("y", output_dims);
    b.Initializer(OnnxFloatTensor("w", {1, 1, 4, 4}, Zeros(16)));
    auto& conv = b.Node("Conv", {"x", "w"}, {"y"}, "conv");
    SetAttr(conv, "auto_pad", auto_pad);
    SetAttr(conv, "strides", Ints{2, 2});
    auto graph = b.Import();
    return graph->FindNode("conv")->attrs().GetInts("pads");
  };
  CHECK(pads_for("SAME_UPPER", {1, 1, 3, 3}) == Ints{1, 2, 1, 1});
  CHECK(pads_for("SAME_LOWER", {1, 1, 3, 3}) == Ints{2, 1, 1, 1});
  CHECK(pads_for("VALID", {1, 1, 1, 2}) == Ints{0, 0, 0, 0});
}

TEST_CASE("Conv SAME padding on an unknown spatial dim is refused with the node's name") {
  OnnxModelBuilder b(13);
  b.Input("x", {1, 1, -1, 6}).Output("y", {1, 1, -1, 3});
  b.Initializer(OnnxFloatTensor("w", {1, 1, 3, 3}, Zeros(9)));
  auto& conv = b.Node("Conv", {"x", "w"}, {"y"}, "dyn_conv");
  SetAttr(conv, "auto_pad", std::string("SAME_UPPER"));
  SetAttr(conv, "strides", Ints{2, 2});
  CHECK_THROWS_WITH(b.Import(), Catch::Contains("node 'dyn_conv' (Conv)") && Catch::Contains("auto_pad"));
}

TEST_CASE("ConvTranspose makes input_size from the ONNX output shape rule") {
  // in 4x5, kernel 3, stride 2, pads [1,0,1,2] (top,left,bottom,right), output_padding [1,0]:
  // H = 2*(4-1) + 1 + 3 - 1 - 1 = 8, W = 2*(5-1) + 0 + 3 - 0 - 2 = 9. Filter [Cin=2, Cout/g=3].
  OnnxModelBuilder b(13);
  b.Input("x", {2, 2, 4, 5}).Output("y", {2, 3, 8, 9});
  b.Initializer(OnnxFloatTensor("w", {2, 3, 3, 3}, Zeros(54)));
  auto& deconv = b.Node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  SetAttr(deconv, "strides", Ints{2, 2});
  SetAttr(deconv, "pads", Ints{1, 0, 1, 2});
  SetAttr(deconv, "output_padding", Ints{1, 0});
  auto graph = b.Import();
  Node* node = graph->FindNode("up");
  REQUIRE(node);
  CHECK(node->op_type() == "Conv2DTranspose");
  REQUIRE(node->num_inputs() == 3);
  const Tensor* input_size = node->input(0)->constant();
  REQUIRE(input_size);
  CHECK(input_size->ToInt64Vector() == Ints{2, 3, 8, 9});
  CHECK(node->input(1)->name() == "x");
  CHECK(node->input(2)->name() == "w");
  CHECK(node->attrs().GetInts("pads") == Ints{1, 1, 0, 2});
  CHECK(node->attrs().GetInts("strides") == Ints{1, 1, 2, 2});
  CHECK(node->attrs().GetInts("output_padding") == Ints{0, 0, 1, 0});
}

TEST_CASE("ConvTranspose with output_shape derives the pads") {
  // in 3, stride 2, kernel 3: without pads 2*2 + 3 = 7; output_shape 6 -> total padding 1,
  // which NOTSET puts at the beginning.
  OnnxModelBuilder b(13);
  b.Input("x", {1, 1, 3, 3}).Output("y", {1, 1, 6, 6});
  b.Initializer(OnnxFloatTensor("w", {1, 1, 3, 3}, Zeros(9)));
  auto& deconv = b.Node("ConvTranspose", {"x", "w"}, {"y"}, "up");
  SetAttr(deconv, "strides", Ints{2, 2});
  SetAttr(deconv, "output_shape", Ints{6, 6});
  auto graph = b.Import();
  Node* node = graph->FindNode("up");
  CHECK(node->input(0)->constant()->ToInt64Vector() == Ints{1, 1, 6, 6});
  CHECK(node->attrs().GetInts("pads") == Ints{1, 0, 1, 0});
}

TEST_CASE("MaxPool becomes MaxPoolV3 with dilations and ceil_mode, or MaxPoolWithArgmax with Indices") {
  OnnxModelBuilder b(12);
  b.Input("x", {1, 3, 10, 10}).Output("y", {1, 3, 4, 6});
  auto& pool = b.Node("MaxPool", {"x"}, {"y"}, "pool");
  SetAttr(pool, "kernel_shape", Ints{3, 2});
  SetAttr(pool, "strides", Ints{2, 2});
  SetAttr(pool, "pads", Ints{0, 1, 1, 0});
  SetAttr(pool, "dilations", Ints{2, 1});
  SetAttr(pool, "ceil_mode", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("pool");
  REQUIRE(node);
  CHECK(node->op_type() == "MaxPoolV3");
  CHECK(node->attrs().GetInts("ksize") == Ints{1, 1, 3, 2});
  CHECK(node->attrs().GetInts("strides") == Ints{1, 1, 2, 2});
  CHECK(node->attrs().GetInts("pads") == Ints{0, 1, 1, 0});
  CHECK(node->attrs().GetInts("dilations") == Ints{1, 1, 2, 1});
  CHECK(node->attrs().GetBool("ceil_mode"));

  OnnxModelBuilder with_indices(12);
  with_indices.Input("x", {1, 1, 4, 4}).Output("y", {1, 1, 3, 3}).Output("i", {1, 1, 3, 3}, kOnnxInt64);
  auto& argpool = with_indices.Node("MaxPool", {"x"}, {"y", "i"}, "argpool");
  SetAttr(argpool, "kernel_shape", Ints{2, 2});
  SetAttr(argpool, "storage_order", int64_t{1});
  auto argpool_graph = with_indices.Import();
  Node* argmax = argpool_graph->FindNode("argpool");
  CHECK(argmax->op_type() == "MaxPoolWithArgmax");
  CHECK(argmax->attrs().GetInt("storage_order") == 1);
  CHECK(argpool_graph->outputs()[1]->producer() == argmax);
  CHECK(argpool_graph->outputs()[1]->dtype() == DataType::kInt64);
}

TEST_CASE("AveragePool maps count_include_pad to exclusive and SAME forces floor sizing") {
  auto translate = [](int64_t count_include_pad) {
    OnnxModelBuilder b(11);
    b.Input("x", {1, 1, 5, 5}).Output("y", {1, 1, 3, 3});
    auto& pool = b.Node("AveragePool", {"x"}, {"y"}, "avg");
    SetAttr(pool, "kernel_shape", Ints{3, 3});
    SetAttr(pool, "strides", Ints{2, 2});
    SetAttr(pool, "auto_pad", std::string("SAME_UPPER"));
    SetAttr(pool, "ceil_mode", int64_t{1});
    SetAttr(pool, "count_include_pad", count_include_pad);
    return b.Import();
  };
  auto exclusive = translate(0);
  Node* node = exclusive->FindNode("avg");
  CHECK(node->op_type() == "AvgPoolV2");
  CHECK(node->attrs().GetBool("exclusive"));
  // out = ceil(5/2) = 3, total padding (3-1)*2 + 3 - 5 = 2.
  CHECK(node->attrs().GetInts("pads") == Ints{1, 1, 1, 1});
  CHECK_FALSE(node->attrs().GetBool("ceil_mode"));
  CHECK_FALSE(node->attrs().Has("dilations"));
  CHECK_FALSE(translate(1)->FindNode("avg")->attrs().GetBool("exclusive"));
}

TEST_CASE("GlobalAveragePool becomes ReduceMeanD over the spatial axes keeping dims") {
  OnnxModelBuilder b(13);
  b.Input("x", {2, 3, 7, 7}).Output("y", {2, 3, 1, 1});
  b.Node("GlobalAveragePool", {"x"}, {"y"}, "gap");
  auto graph = b.Import();
  Node* node = graph->FindNode("gap");
  CHECK(node->op_type() == "ReduceMeanD");
  CHECK(node->attrs().GetInts("axes") == Ints{2, 3});
  CHECK(node->attrs().GetBool("keep_dims"));
}

}  // namespace ge::test
