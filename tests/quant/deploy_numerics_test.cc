// Each layer kind of the deploy graph against an independent oracle: the
// float graph of the same structure run on fake-quantized tensors
// (fq(v) = (clamp(rint(v / s + o)) - o) * s) with the int32-rounded bias.
// The scales are powers of two, so quantizing is exact in float32 and both
// sides agree up to float rounding; AvgPoolV2 rounds its int8 average, so it
// agrees within half a step.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "quant/deploy_rewrite.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"

using ge::DataType;
using ge::Graph;
using ge::Shape;
using ge::Tensor;
using ge::Value;
using ge::quant::ActivationQuantParams;
using ge::quant::LayerRecord;
using ge::quant::QuantDType;
using ge::quant::QuantRecord;
using ge::quant::WeightQuantParams;

namespace {

// Values k / 64 with k pseudo-random in [-span, span]: on the grid of the power-of-two scales below.
Tensor GridTensor(const Shape& shape, uint32_t seed, int span = 128) {
  Tensor t(DataType::kFloat, shape);
  uint32_t state = seed;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    const int k = static_cast<int>((state >> 8) % static_cast<uint32_t>(2 * span + 1)) - span;
    t.data_as<float>()[i] = static_cast<float>(k) / 64;
  }
  return t;
}

float FakeQuantValue(float v, float scale, int32_t offset, int64_t lo, int64_t hi) {
  const double q = std::clamp<double>(std::nearbyint(static_cast<double>(v) / scale + offset), lo, hi);
  return static_cast<float>((q - offset) * scale);
}

Tensor FakeQuant(const Tensor& t, float scale, int32_t offset, QuantDType type = QuantDType::kInt8) {
  const int64_t hi = type == QuantDType::kInt8 ? 127 : 32767;
  Tensor out(DataType::kFloat, t.shape());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    out.data_as<float>()[i] = FakeQuantValue(t.data_as<float>()[i], scale, offset, -hi - 1, hi);
  }
  return out;
}

// Symmetric int8 per channel along `axis`.
Tensor FakeQuantWeight(const Tensor& w, const std::vector<float>& scales, int64_t axis) {
  const std::vector<int64_t>& dims = w.shape().dims();
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  Tensor out(DataType::kFloat, w.shape());
  for (int64_t i = 0; i < w.num_elements(); ++i) {
    const auto c = static_cast<size_t>((i / inner) % dims[static_cast<size_t>(axis)]);
    out.data_as<float>()[i] = FakeQuantValue(w.data_as<float>()[i], scales[scales.size() == 1 ? 0 : c], 0, -128, 127);
  }
  return out;
}

// The float bias the int32 bias stands for: rint(b / (s_w * s_d)) * s_w * s_d.
Tensor RoundedBias(const Tensor& bias, const std::vector<float>& scales, float scale_d) {
  Tensor out(DataType::kFloat, bias.shape());
  for (int64_t c = 0; c < bias.num_elements(); ++c) {
    const double step = static_cast<double>(scales[scales.size() == 1 ? 0 : static_cast<size_t>(c)]) * scale_d;
    out.data_as<float>()[c] = static_cast<float>(std::nearbyint(bias.data_as<float>()[c] / step) * step);
  }
  return out;
}

LayerRecord Record(float scale_d, int32_t offset_d, std::vector<float> scale_w = {},
                   QuantDType type = QuantDType::kInt8) {
  LayerRecord record;
  record.activation = ActivationQuantParams{scale_d, offset_d, type};
  if (!scale_w.empty()) record.weights = WeightQuantParams{scale_w, std::vector<int32_t>(scale_w.size(), 0), 8};
  return record;
}

// max |deploy(inputs) - reference(reference_inputs)| over the first output.
double MaxDiff(const Graph& graph, const QuantRecord& record, const std::vector<Tensor>& inputs,
               std::unique_ptr<Graph> reference, const std::vector<Tensor>& reference_inputs) {
  const auto layers = ge::quant::PlanQuantLayers(graph, ge::quant::QuantConfig());
  for (const auto& layer : layers) {
    INFO(layer.name << ": " << layer.Decision());
    REQUIRE(layer.quantize);
  }
  auto deploy = ge::CompiledModel::Compile(ge::quant::BuildDeployGraph(graph, layers, record));
  auto expected = ge::CompiledModel::Compile(std::move(reference));
  const Tensor got = deploy->Run(inputs)[0];
  const Tensor want = expected->Run(reference_inputs)[0];
  REQUIRE(got.shape() == want.shape());
  double diff = 0;
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(got.data_as<float>()[i]) - want.data_as<float>()[i]));
  }
  return diff;
}

constexpr double kFloatRounding = 1e-5;

}  // namespace

TEST_CASE("deploy numerics: MatMulV2 with transposed weight, bias and asymmetric x", "[deploy][numerics]") {
  const Tensor x = GridTensor({4, 16}, 1);
  const Tensor w = GridTensor({8, 16}, 2, 64);
  const Tensor bias = GridTensor({8}, 3);
  auto build = [](const Tensor& weight, const Tensor& b_value) {
    ge::GraphBuilder b;
    Value* in = b.Input("x", DataType::kFloat, {4, 16});
    b.Output(b.MatMul(in, b.Constant("w", weight), b.Constant("b", b_value), false, true, "fc"));
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64, 1.0f / 128, 1.0f / 64,  1.0f / 128,
                                 1.0f / 64, 1.0f / 64,  1.0f / 128, 1.0f / 64};
  const float sd = 1.0f / 32;
  auto graph = build(w, bias);
  const double diff = MaxDiff(*graph, {{"fc", Record(sd, 7, sw)}}, {x},
                              build(FakeQuantWeight(w, sw, 0), RoundedBias(bias, sw, sd)), {FakeQuant(x, sd, 7)});
  CHECK(diff < kFloatRounding);
}

TEST_CASE("deploy numerics: BatchMatMulV2 with a constant 2-D x2", "[deploy][numerics]") {
  const Tensor x = GridTensor({2, 3, 16}, 4);
  const Tensor w = GridTensor({16, 8}, 5, 64);
  auto build = [](const Tensor& weight) {
    ge::GraphBuilder b;
    b.Output(b.BatchMatMul(b.Input("x", DataType::kFloat, {2, 3, 16}), b.Constant("w", weight), false, false, "mm"));
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64};
  auto graph = build(w);
  CHECK(MaxDiff(*graph, {{"mm", Record(1.0f / 32, 0, sw)}}, {x}, build(FakeQuantWeight(w, sw, 1)),
                {FakeQuant(x, 1.0f / 32, 0)}) < kFloatRounding);
}

TEST_CASE("deploy numerics: BatchMatMulV2 of two tensors", "[deploy][numerics]") {
  const Tensor x = GridTensor({2, 3, 8}, 6);
  const Tensor y = GridTensor({2, 8, 5}, 7);
  auto build = [] {
    ge::GraphBuilder b;
    Value* a = b.Input("x", DataType::kFloat, {2, 3, 8});
    Value* c = b.Input("y", DataType::kFloat, {2, 8, 5});
    b.Output(b.BatchMatMul(a, c, false, false, "mm"));
    return b.Build();
  };
  LayerRecord record = Record(1.0f / 32, 0);
  record.second_activation = ActivationQuantParams{1.0f / 16, 0, QuantDType::kInt8};
  auto graph = build();
  CHECK(MaxDiff(*graph, {{"mm", record}}, {x, y}, build(), {FakeQuant(x, 1.0f / 32, 0), FakeQuant(y, 1.0f / 16, 0)}) <
        kFloatRounding);
}

TEST_CASE("deploy numerics: depthwise Conv2D with padding, stride 2 and a zero point", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 4, 7, 7}, 8);
  const Tensor w = GridTensor({4, 1, 3, 3}, 9, 64);
  const Tensor bias = GridTensor({4}, 10);
  auto build = [](const Tensor& weight, const Tensor& b_value) {
    ge::GraphBuilder b;
    ge::Conv2DOptions options;
    options.strides = {2, 2};
    options.pads = {1, 1, 1, 1};
    options.groups = 4;
    b.Output(b.Conv2D(b.Input("x", DataType::kFloat, {1, 4, 7, 7}), b.Constant("w", weight), b.Constant("b", b_value),
                      options, "conv"));
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64, 1.0f / 128, 1.0f / 64, 1.0f / 32};
  const float sd = 1.0f / 16;
  auto graph = build(w, bias);
  CHECK(MaxDiff(*graph, {{"conv", Record(sd, -9, sw)}}, {x},
                build(FakeQuantWeight(w, sw, 0), RoundedBias(bias, sw, sd)), {FakeQuant(x, sd, -9)}) < kFloatRounding);
}

TEST_CASE("deploy numerics: Conv2D with INT16 activations", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 5, 5}, 11);
  const Tensor w = GridTensor({3, 2, 3, 3}, 12, 64);
  auto build = [](const Tensor& weight) {
    ge::GraphBuilder b;
    ge::Conv2DOptions options;
    options.pads = {1, 1, 1, 1};
    b.Output(b.Conv2D(b.Input("x", DataType::kFloat, {1, 2, 5, 5}), b.Constant("w", weight), nullptr, options, "conv"));
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64};
  const float sd = 1.0f / 4096;
  auto graph = build(w);
  CHECK(MaxDiff(*graph, {{"conv", Record(sd, 300, sw, QuantDType::kInt16)}}, {x}, build(FakeQuantWeight(w, sw, 0)),
                {FakeQuant(x, sd, 300, QuantDType::kInt16)}) < kFloatRounding);
}

TEST_CASE("deploy numerics: Conv2DTranspose", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 4, 4}, 13);
  const Tensor w = GridTensor({2, 3, 3, 3}, 14, 64);
  const Tensor bias = GridTensor({3}, 15);
  auto build = [](const Tensor& weight, const Tensor& b_value) {
    ge::GraphBuilder b;
    Value* size = b.Constant("size", Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {1, 3, 9, 9}));
    b.Output(b.Op(
        "Conv2DTranspose",
        {size, b.Input("x", DataType::kFloat, {1, 2, 4, 4}), b.Constant("w", weight), b.Constant("b", b_value)},
        {{"strides", std::vector<int64_t>{1, 1, 2, 2}}, {"pads", std::vector<int64_t>{0, 0, 0, 0}}}, 1, "deconv")[0]);
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64, 1.0f / 128, 1.0f / 64};
  const float sd = 1.0f / 16;
  auto graph = build(w, bias);
  CHECK(MaxDiff(*graph, {{"deconv", Record(sd, 3, sw)}}, {x},
                build(FakeQuantWeight(w, sw, 1), RoundedBias(bias, sw, sd)), {FakeQuant(x, sd, 3)}) < kFloatRounding);
}

TEST_CASE("deploy numerics: MaxPoolV3 on int8", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 6, 6}, 16);
  auto build = [] {
    ge::GraphBuilder b;
    ge::Pool2DOptions options;
    options.kernel = {3, 3};
    options.pads = {1, 1, 1, 1};
    b.Output(b.MaxPool(b.Input("x", DataType::kFloat, {1, 2, 6, 6}), options, "pool"));
    return b.Build();
  };
  auto graph = build();
  CHECK(MaxDiff(*graph, {{"pool", Record(1.0f / 16, 11)}}, {x}, build(), {FakeQuant(x, 1.0f / 16, 11)}) ==
        Approx(0).margin(kFloatRounding));
}

TEST_CASE("deploy numerics: AvgPoolV2 on int8 with counted padding", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 6, 6}, 17);
  for (bool exclusive : {true, false}) {
    INFO("exclusive " << exclusive);
    auto build = [exclusive] {
      ge::GraphBuilder b;
      ge::Pool2DOptions options;
      options.kernel = {3, 3};
      options.strides = {1, 1};
      options.pads = {1, 1, 1, 1};
      b.Output(b.AvgPool(b.Input("x", DataType::kFloat, {1, 2, 6, 6}), options, exclusive, "pool"));
      return b.Build();
    };
    const float sd = 1.0f / 16;
    auto graph = build();
    // The int8 average is rounded to the grid: at most half a step away.
    CHECK(MaxDiff(*graph, {{"pool", Record(sd, -6)}}, {x}, build(), {FakeQuant(x, sd, -6)}) <= sd / 2 + kFloatRounding);
  }
}

TEST_CASE("deploy numerics: Add with one quantized input", "[deploy][numerics]") {
  const Tensor x = GridTensor({2, 8}, 18);
  const Tensor c = GridTensor({2, 8}, 19);
  auto build = [&c] {
    ge::GraphBuilder b;
    b.Output(b.Add(b.Input("x", DataType::kFloat, {2, 8}), b.Constant("c", c), "add"));
    return b.Build();
  };
  auto graph = build();
  CHECK(MaxDiff(*graph, {{"add", Record(1.0f / 8, 2)}}, {x}, build(), {FakeQuant(x, 1.0f / 8, 2)}) < kFloatRounding);
}

TEST_CASE("deploy numerics: Conv3D", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 4, 5, 5}, 20);
  const Tensor w = GridTensor({3, 2, 2, 3, 3}, 21, 64);
  auto build = [](const Tensor& weight) {
    ge::GraphBuilder b;
    b.Output(b.Op("Conv3D", {b.Input("x", DataType::kFloat, {1, 2, 4, 5, 5}), b.Constant("w", weight)},
                  {{"strides", std::vector<int64_t>{1, 1, 1, 1, 1}}, {"pads", std::vector<int64_t>{0, 0, 1, 1, 1, 1}}},
                  1, "conv3d")[0]);
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64, 1.0f / 32, 1.0f / 64};
  const float sd = 1.0f / 16;
  auto graph = build(w);
  CHECK(MaxDiff(*graph, {{"conv3d", Record(sd, 4, sw)}}, {x}, build(FakeQuantWeight(w, sw, 0)), {FakeQuant(x, sd, 4)}) <
        kFloatRounding);
}

TEST_CASE("deploy numerics: a float16 Conv2D dequantizes to float16", "[deploy][numerics]") {
  const Tensor x = GridTensor({1, 2, 5, 5}, 22);
  const Tensor w = GridTensor({3, 2, 3, 3}, 23, 64);
  const Tensor bias = GridTensor({3}, 24);
  auto half = [](const Tensor& t) {
    Tensor out(DataType::kFloat16, t.shape());
    for (int64_t i = 0; i < t.num_elements(); ++i) out.data_as<_Float16>()[i] = t.data_as<float>()[i];
    return out;
  };
  auto build = [](DataType type, const Tensor& weight, const Tensor& b_value) {
    ge::GraphBuilder b;
    b.Output(b.Conv2D(b.Input("x", type, {1, 2, 5, 5}), b.Constant("w", weight), b.Constant("b", b_value), {}, "conv"));
    return b.Build();
  };
  const std::vector<float> sw = {1.0f / 64};
  const float sd = 1.0f / 16;
  auto graph = build(DataType::kFloat16, half(w), half(bias));  // the grid values are exact in float16
  const auto layers = ge::quant::PlanQuantLayers(*graph, ge::quant::QuantConfig());
  REQUIRE(layers.at(0).quantize);
  auto deploy = ge::quant::BuildDeployGraph(*graph, layers, {{"conv", Record(sd, 1, sw)}});
  CHECK(deploy->FindNode("conv_dequant")->attrs().GetInt("dtype") == 1);
  auto model = ge::CompiledModel::Compile(std::move(deploy));
  const Tensor got = model->Run({half(x)})[0];
  REQUIRE(got.dtype() == DataType::kFloat16);
  auto reference =
      ge::CompiledModel::Compile(build(DataType::kFloat, FakeQuantWeight(w, sw, 0), RoundedBias(bias, sw, sd)));
  const Tensor want = reference->Run({FakeQuant(x, sd, 1)})[0];
  for (int64_t i = 0; i < got.num_elements(); ++i) {
    const float expected = want.data_as<float>()[i];
    CHECK(static_cast<float>(got.data_as<_Float16>()[i]) == Approx(expected).margin(1e-3).epsilon(1e-3));
  }
}
