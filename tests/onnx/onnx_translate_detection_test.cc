// Translations of the detection, sampling and signal ops: NonMaxSuppression,
// RoiAlign (opset 10 vs 16 coordinates), GridSample, the window generators,
// DFT and STFT.
#include <catch2/catch.hpp>

#include "graph/op_schema.h"
#include "onnx_model_builder.h"

namespace ge::test {

TEST_CASE("NonMaxSuppression keeps its inputs in order, absent ones absent") {
  OnnxModelBuilder b(11);
  b.Input("boxes", {1, 6, 4}).Input("scores", {1, 1, 6}).Output("selected", {-1, 3}, kOnnxInt64);
  b.Initializer(OnnxInt64Tensor("max", {1}, {3}));
  b.Initializer(OnnxFloatTensor("score", {1}, {0.2f}));
  SetAttr(b.Node("NonMaxSuppression", {"boxes", "scores", "max", "", "score"}, {"selected"}, "nms"),
          "center_point_box", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("nms");
  REQUIRE(node->op_type() == "NonMaxSuppressionV6");
  REQUIRE(node->num_inputs() == 5);
  CHECK(node->input(2)->constant()->ToInt64Vector() == std::vector<int64_t>{3});
  CHECK(node->input(3) == nullptr);
  CHECK(node->input(4)->constant()->data_as<float>()[0] == 0.2f);
  CHECK(node->attrs().GetInt("center_point_box") == 1);
  CHECK(node->output(0)->dtype() == DataType::kInt64);
}

TEST_CASE("RoiAlign renames its attributes and defaults to half_pixel from opset 16") {
  for (int opset : {10, 16}) {
    OnnxModelBuilder b(opset);
    b.Input("x", {1, 2, 8, 8}).Input("rois", {3, 4}).Input("batch", {3}, kOnnxInt64).Output("y", {3, 2, 2, 3});
    auto& roi = b.Node("RoiAlign", {"x", "rois", "batch"}, {"y"}, "roi");
    SetAttr(roi, "output_height", int64_t{2});
    SetAttr(roi, "output_width", int64_t{3});
    SetAttr(roi, "sampling_ratio", int64_t{2});
    SetAttr(roi, "spatial_scale", 0.25f);
    SetAttr(roi, "mode", std::string("max"));
    auto graph = b.Import();
    Node* node = graph->FindNode("roi");
    REQUIRE(node->op_type() == "ROIAlign");
    CHECK(node->attrs().GetInt("pooled_height") == 2);
    CHECK(node->attrs().GetInt("pooled_width") == 3);
    CHECK(node->attrs().GetInt("sample_num") == 2);
    CHECK(node->attrs().GetFloat("spatial_scale") == 0.25f);
    CHECK(node->attrs().GetString("mode") == "max");
    CHECK(node->attrs().GetString("coordinate_transformation_mode") ==
          (opset >= 16 ? "half_pixel" : "output_half_pixel"));
  }
}

TEST_CASE("GridSample maps mode to interpolation_mode and an unknown one fails naming the choices") {
  OnnxModelBuilder b(16);
  b.Input("x", {1, 1, 4, 4}).Input("grid", {1, 2, 3, 2}).Output("y", {1, 1, 2, 3});
  auto& gs = b.Node("GridSample", {"x", "grid"}, {"y"}, "gs");
  SetAttr(gs, "mode", std::string("bicubic"));
  SetAttr(gs, "padding_mode", std::string("reflection"));
  SetAttr(gs, "align_corners", int64_t{1});
  auto graph = b.Import();
  Node* node = graph->FindNode("gs");
  REQUIRE(node->op_type() == "GridSampler2D");
  CHECK(node->attrs().GetString("interpolation_mode") == "bicubic");
  CHECK(node->attrs().GetString("padding_mode") == "reflection");
  CHECK(node->attrs().GetBool("align_corners"));

  // "linear" is the opset-20 name; at 16 the ge schema refuses it when inferring the node.
  node->attrs().Set("interpolation_mode", std::string("linear"));
  const OpSchema* schema = OpRegistry::Global().Find("GridSampler2D");
  InferContext ctx(*node);
  REQUIRE_THROWS_WITH(schema->infer()(ctx),
                      Catch::Contains("'gs'") && Catch::Contains("valid: bilinear, nearest, bicubic"));
}

TEST_CASE("Window ops and MelWeightMatrix turn output_datatype into a ge dtype") {
  OnnxModelBuilder b(17);
  b.Initializer(OnnxInt64Tensor("size", {}, {10}));
  b.Output("w", {10}, onnx::TensorProto::DOUBLE);
  auto& hann = b.Node("HannWindow", {"size"}, {"w"}, "hann");
  SetAttr(hann, "output_datatype", int64_t{onnx::TensorProto::DOUBLE});
  SetAttr(hann, "periodic", int64_t{0});
  auto graph = b.Import();
  Node* node = graph->FindNode("hann");
  REQUIRE(node->op_type() == "HannWindow");
  CHECK(node->attrs().GetInt("dtype") == static_cast<int64_t>(DataType::kDouble));
  CHECK_FALSE(node->attrs().GetBool("periodic"));

  OnnxModelBuilder defaults(17);
  defaults.Initializer(OnnxInt64Tensor("size", {}, {4}));
  defaults.Output("w", {4});
  defaults.Node("BlackmanWindow", {"size"}, {"w"}, "blackman");
  auto graph2 = defaults.Import();
  Node* blackman = graph2->FindNode("blackman");
  CHECK(blackman->attrs().GetInt("dtype") == static_cast<int64_t>(DataType::kFloat));
  CHECK(blackman->attrs().GetBool("periodic"));

  OnnxModelBuilder mel(17);
  for (const char* name : {"bins", "dft", "rate"}) mel.Input(name, {}, kOnnxInt64);
  mel.Input("low", {}).Input("high", {}).Output("m", {-1, -1}, onnx::TensorProto::INT32);
  SetAttr(mel.Node("MelWeightMatrix", {"bins", "dft", "rate", "low", "high"}, {"m"}, "mel"), "output_datatype",
          int64_t{onnx::TensorProto::INT32});
  auto graph3 = mel.Import();
  Node* mel_node = graph3->FindNode("mel");
  REQUIRE(mel_node->op_type() == "MelWeightMatrix");
  CHECK(mel_node->num_inputs() == 5);
  CHECK(mel_node->attrs().GetInt("dtype") == static_cast<int64_t>(DataType::kInt32));
}

TEST_CASE("DFT and STFT turn their int attributes into flags and keep optional inputs") {
  OnnxModelBuilder b(17);
  b.Input("x", {2, 8, 1}).Initializer(OnnxInt64Tensor("step", {}, {2})).Initializer(OnnxInt64Tensor("len", {}, {4}));
  b.Output("spectrum", {2, 8, 2}).Output("frames", {2, 3, 4, 2});
  auto& dft = b.Node("DFT", {"x"}, {"spectrum"}, "dft");
  SetAttr(dft, "inverse", int64_t{1});
  SetAttr(b.Node("STFT", {"x", "step", "", "len"}, {"frames"}, "stft"), "onesided", int64_t{0});
  auto graph = b.Import();
  Node* dft_node = graph->FindNode("dft");
  REQUIRE(dft_node->op_type() == "DFT");
  CHECK(dft_node->attrs().GetInt("axis") == 1);
  CHECK(dft_node->attrs().GetBool("inverse"));
  CHECK_FALSE(dft_node->attrs().GetBool("onesided"));
  CHECK(dft_node->input(1) == nullptr);
  Node* stft = graph->FindNode("stft");
  REQUIRE(stft->op_type() == "STFT");
  CHECK_FALSE(stft->attrs().GetBool("onesided"));
  CHECK(stft->input(2) == nullptr);
  CHECK(stft->input(3)->constant()->ToInt64Vector() == std::vector<int64_t>{4});
}

}  // namespace ge::test
