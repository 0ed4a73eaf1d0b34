// Cross-layer equalization on a depthwise chain whose channels differ in
// range by up to 2500x: conv1 -> Relu -> depthwise conv2 -> clip(0, 6) ->
// 1x1 conv3. The rewritten float graph must compute what the original does
// (on the calibration data, for the clipped pair), each pair joined by a Relu
// must end with equal ranges on both sides, a channel the clip acted on keeps
// scale 1, and with one weight scale per tensor the quantized model must come
// closer to float. The scales replay from the record, and a record that does
// not fit the model is refused naming the layer.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/quantize.h"
#include "quant/cross_layer_equalization.h"
#include "quant/device_independent_compile.h"
#include "quant/layer_weights.h"
#include "quant/quant_config.h"
#include "quant/quant_record.h"
#include "test_support.h"

using namespace ge;

namespace {

constexpr int64_t kIn = 4, kMid = 8, kOut = 4, kSide = 8;
// Channel 5's depthwise output is pushed past the clip's 6.
constexpr int64_t kClippedChannel = 5;

Tensor Scalar(float value) { return Tensor::FromVector(DataType::kFloat, Shape({}), std::vector<float>{value}); }

// A filter [cout, cin, k, k] whose output channel o is scaled by gains[o].
Tensor ScaledFilter(Shape shape, uint32_t seed, const std::vector<float>& gains) {
  Tensor filter = test::RandomFloats(shape, seed, -1.0f, 1.0f);
  const int64_t per_output = shape.NumElements() / shape.dim(0);
  for (int64_t i = 0; i < shape.NumElements(); ++i) filter.data_as<float>()[i] *= gains[i / per_output];
  return filter;
}

std::unique_ptr<Graph> DepthwiseChain() {
  GraphBuilder b("chain");
  Value* x = b.Input("x", DataType::kFloat, {1, kIn, kSide, kSide});
  Conv2DOptions same;
  same.pads = {1, 1, 1, 1};
  const std::vector<float> wide = {0.02f, 50.0f, 0.5f, 3.0f, 0.1f, 1.0f, 20.0f, 0.05f};
  Value* y1 = b.Conv2D(x, b.Constant("w1", ScaledFilter(Shape({kMid, kIn, 3, 3}), 1, wide)),
                       b.Constant("b1", test::RandomFloats(Shape({kMid}), 2, -0.1f, 0.1f)), same, "conv1");
  Value* a1 = b.Relu(y1, "relu");
  Conv2DOptions depthwise = same;
  depthwise.groups = kMid;
  std::vector<float> narrow(kMid);
  for (int64_t c = 0; c < kMid; ++c) narrow[c] = 0.2f / std::sqrt(wide[c]);
  narrow[kClippedChannel] = 40.0f;
  Value* y2 = b.Conv2D(a1, b.Constant("w2", ScaledFilter(Shape({kMid, 1, 3, 3}), 3, narrow)),
                       b.Constant("b2", Tensor::FromVector(DataType::kFloat, Shape({kMid}),
                                                           std::vector<float>(kMid, 0.5f))),
                       depthwise, "conv2");
  Value* a2 = b.Op("ClipByValue", {y2, b.Constant("low", Scalar(0.0f)), b.Constant("high", Scalar(6.0f))},
                   {}, 1, "relu6")[0];
  b.Output(b.Conv2D(a2, b.Constant("w3", test::RandomFloats(Shape({kOut, kMid, 1, 1}), 4, -1.0f, 1.0f)), nullptr, {},
                    "conv3"));
  return b.Build();
}

std::vector<std::vector<Tensor>> Batches(uint32_t seed, int count) {
  std::vector<std::vector<Tensor>> batches;
  for (int i = 0; i < count; ++i) {
    batches.push_back({test::RandomFloats(Shape({1, kIn, kSide, kSide}), seed + i, -1.0f, 1.0f)});
  }
  return batches;
}

std::string WriteConfig(const std::filesystem::path& dir, const std::string& name, const std::string& text) {
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

constexpr const char* kPerTensorCle =
    "common_config { arq_quantize { channel_wise: false } cross_layer_equalization: true }\n";

std::vector<double> MaxAbs(const std::vector<float>& values, size_t groups, size_t stride, size_t count) {
  std::vector<double> top(groups, 0.0);
  for (size_t i = 0; i < values.size(); ++i) {
    double& t = top[(i / stride) % count];
    t = std::max(t, static_cast<double>(std::fabs(values[i])));
  }
  return top;
}

}  // namespace

TEST_CASE("cross-layer equalization keeps the float model and equalizes the ranges", "[quant][cle]") {
  const auto dir = test::TempDir("cle_float");
  const std::unique_ptr<Graph> original = DepthwiseChain();
  std::unique_ptr<Graph> graph = quant::CompileDeviceIndependent(original->Clone(), Options{})->graph().Clone();
  const quant::QuantConfig config = quant::LoadQuantConfig(WriteConfig(dir, "cle.txt", kPerTensorCle));
  const std::vector<quant::QuantLayer> layers = quant::PlanQuantLayers(*graph, config);
  const auto batches = Batches(20, 2);
  quant::ActivationCache cache(*graph, quant::ActivationValues(layers), batches, Options{}, [](size_t, size_t) {});
  const auto pairs = quant::EqualizeConvPairs(*graph, layers, cache, nullptr);

  REQUIRE(pairs.count("conv1") == 1);
  REQUIRE(pairs.count("conv2") == 1);
  CHECK(pairs.at("conv1").second == "conv2");
  CHECK(pairs.at("conv2").second == "conv3");
  // The clip acted on channel kClippedChannel only: its scale stays 1, the others are bounded below.
  CHECK(pairs.at("conv2").scales[kClippedChannel] == 1.0f);
  CHECK(pairs.at("conv2").held_by_clip >= 1);

  // conv1 -> Relu -> conv2: conv1's output-channel ranges equal conv2's input-channel ranges.
  const Node* conv1 = graph->FindNode("conv1");
  const Node* conv2 = graph->FindNode("conv2");
  const auto r1 = MaxAbs(quant::TensorAsFloats(*conv1->input(1)->constant(), "w1"), kMid, kIn * 9, kMid);
  const auto r2 = MaxAbs(quant::TensorAsFloats(*conv2->input(1)->constant(), "w2"), kMid, 9, kMid);
  for (int64_t c = 0; c < kMid; ++c) CHECK(r1[c] == Approx(r2[c]).epsilon(1e-3));
  // Before, they were 2500x apart.
  const auto before = MaxAbs(quant::TensorAsFloats(*original->FindNode("w1")->output(0)->constant(), "w1"), kMid,
                             kIn * 9, kMid);
  CHECK(*std::max_element(before.begin(), before.end()) / *std::min_element(before.begin(), before.end()) > 100);

  // The rewritten graph computes what the original does on the calibration batches.
  for (const auto& batch : batches) {
    const Tensor want = CompiledModel::Compile(original->Clone())->Run(batch).at(0);
    const Tensor got = CompiledModel::Compile(graph->Clone())->Run(batch).at(0);
    const Tensor zeros =
        Tensor::FromVector(DataType::kFloat, want.shape(), std::vector<float>(want.num_elements(), 0.0f));
    CHECK(test::MaxAbsDiff(got, want) < 1e-4 * (1 + test::MaxAbsDiff(want, zeros)));
  }
}

TEST_CASE("cross-layer equalization brings per-tensor INT8 closer to float and replays", "[quant][cle]") {
  const auto dir = test::TempDir("cle_quant");
  const std::unique_ptr<Graph> graph = DepthwiseChain();
  QuantizeOptions options;
  options.calibration_batches = Batches(30, 2);
  options.config_path = WriteConfig(dir, "plain.txt", "common_config { arq_quantize { channel_wise: false } }\n");
  const QuantizeResult plain = Quantize(*graph, options);
  options.config_path = WriteConfig(dir, "cle.txt", kPerTensorCle);
  options.record_out = (dir / "record.txt").string();
  const QuantizeResult equalized = Quantize(*graph, options);

  const std::vector<Tensor> held_out = {test::RandomFloats(Shape({1, kIn, kSide, kSide}), 40, -1.0f, 1.0f)};
  const Tensor reference = CompiledModel::Compile(graph->Clone())->Run(held_out).at(0);
  const double plain_cosine =
      test::Cosine({CompiledModel::Compile(plain.graph->Clone())->Run(held_out).at(0)}, {reference});
  const Tensor result = CompiledModel::Compile(equalized.graph->Clone())->Run(held_out).at(0);
  const double cle_cosine = test::Cosine({result}, {reference});
  INFO("held-out cosine, per-tensor weights: without equalization " << plain_cosine << ", with " << cle_cosine);
  CHECK(cle_cosine > plain_cosine);
  CHECK(1 - cle_cosine < 0.5 * (1 - plain_cosine));

  bool noted = false;
  for (const QuantizedLayer& layer : equalized.layers) {
    for (const std::string& note : layer.notes) {
      noted |= layer.layer == "conv1" && note.rfind("cross-layer equalization with 'conv2': 8 output channels", 0) == 0;
    }
  }
  CHECK(noted);

  const quant::QuantRecord record = quant::ReadQuantRecord(options.record_out);
  CHECK(record.at("conv1").equalization_scale.size() == static_cast<size_t>(kMid));
  QuantizeOptions replay;
  replay.record_in = options.record_out;
  replay.config_path = options.config_path;
  const Tensor replayed = CompiledModel::Compile(Quantize(*graph, replay).graph->Clone())->Run(held_out).at(0);
  CHECK(test::MaxAbsDiff(replayed, result) == 0);
}

TEST_CASE("cross-layer equalization needs both layers to ask", "[quant][cle]") {
  const auto dir = test::TempDir("cle_one_side");
  QuantizeOptions options;
  options.calibration_batches = Batches(30, 1);
  options.config_path = WriteConfig(dir, "one.txt",
                                    "common_config { cross_layer_equalization: true }\n"
                                    "override_layer_configs { layer_name: \"conv2\" calibration_config {} }\n");
  options.record_out = (dir / "record.txt").string();
  Quantize(*DepthwiseChain(), options);
  for (const auto& [name, layer] : quant::ReadQuantRecord(options.record_out)) {
    INFO(name);
    CHECK(layer.equalization_scale.empty());
  }
}

TEST_CASE("a record whose equalization does not fit the model names the layer", "[quant][cle]") {
  const auto dir = test::TempDir("cle_bad_record");
  const std::unique_ptr<Graph> graph = DepthwiseChain();
  QuantizeOptions options;
  options.calibration_batches = Batches(30, 1);
  options.config_path = WriteConfig(dir, "cle.txt", kPerTensorCle);
  options.record_out = (dir / "record.txt").string();
  Quantize(*graph, options);
  quant::QuantRecord record = quant::ReadQuantRecord(options.record_out);

  SECTION("too few scales") {
    record["conv1"].equalization_scale.pop_back();
    quant::WriteQuantRecord(record, (dir / "short.txt").string());
    QuantizeOptions replay;
    replay.record_in = (dir / "short.txt").string();
    const auto [code, message] = test::ErrorOf([&] { Quantize(*graph, replay); });
    CHECK(code == ErrorCode::kInvalidArgument);
    CHECK_THAT(message, Catch::Contains("layer 'conv1'") && Catch::Contains("7 equalization_scale values") &&
                            Catch::Contains("8 output channels"));
  }
  SECTION("no convolution after the layer") {
    record["conv3"].equalization_scale = {1.0f, 2.0f, 3.0f, 4.0f};
    quant::WriteQuantRecord(record, (dir / "last.txt").string());
    QuantizeOptions replay;
    replay.record_in = (dir / "last.txt").string();
    const auto [code, message] = test::ErrorOf([&] { Quantize(*graph, replay); });
    CHECK(code == ErrorCode::kInvalidArgument);
    CHECK_THAT(message, Catch::Contains("layer 'conv3'") && Catch::Contains("no convolution follows it"));
  }
  SECTION("a scale that is not positive") {
    std::string text = quant::QuantRecordToText(record);
    const size_t at = text.find("equalization_scale: ");
    REQUIRE(at != std::string::npos);
    text.insert(at + std::string("equalization_scale: ").size(), "-");
    std::ofstream((dir / "negative.txt").string()) << text;
    const auto [code, message] = test::ErrorOf([&] { quant::ReadQuantRecord((dir / "negative.txt").string()); });
    CHECK(code == ErrorCode::kInvalidArgument);
    CHECK_THAT(message, Catch::Contains("equalization_scale") && Catch::Contains("is not a positive scale"));
  }
}
