// BuildDeployGraph: the structure it makes (op types, names, dtypes, int32
// bias and deq_scale words computed by hand), its errors, requant fusion, and
// a quantized Conv2D + Relu + Conv2D run against a float64 reference of the
// same integer arithmetic.
#include "quant/deploy_rewrite.h"

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"
#include "quant/quant_scale_bits.h"
#include "test_support.h"
#include "graph_queries.h"

using ge::DataType;
using ge::Graph;
using ge::Node;
using ge::Shape;
using ge::Tensor;
using ge::Value;
using ge::quant::ActivationQuantParams;
using ge::quant::LayerRecord;
using ge::quant::QuantDType;
using ge::quant::QuantLayer;
using ge::quant::QuantRecord;
using ge::quant::WeightQuantParams;

using ge::test::CountOps;
using ge::test::NodeNamed;

namespace {

std::vector<QuantLayer> PlanDefault(const Graph& graph, const std::string& config = "") {
  return ge::quant::PlanQuantLayers(graph, ge::quant::ParseQuantConfig(config, "test.cfg"));
}

LayerRecord Weighted(float scale_d, int32_t offset_d, std::vector<float> scale_w,
                     QuantDType dtype = QuantDType::kInt8) {
  LayerRecord record;
  record.activation = ActivationQuantParams{scale_d, offset_d, dtype};
  record.weights = WeightQuantParams{scale_w, std::vector<int32_t>(scale_w.size(), 0), 8};
  return record;
}

LayerRecord TensorOnly(float scale_d, int32_t offset_d, QuantDType dtype = QuantDType::kInt8) {
  LayerRecord record;
  record.activation = ActivationQuantParams{scale_d, offset_d, dtype};
  return record;
}

std::string LayerTag(const Node& node) { return node.attrs().GetString("_quant_layer"); }

template <typename T>
std::vector<T> ConstantValues(const Value* value) {
  REQUIRE(value != nullptr);
  REQUIRE(value->constant() != nullptr);
  auto span = value->constant()->values<T>();
  return {span.begin(), span.end()};
}

uint64_t FloatBits(float f) { return std::bit_cast<uint32_t>(f); }

}  // namespace

TEST_CASE("deploy: Conv2D becomes AscendQuant -> int8 Conv2D -> AscendDequant", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 3, 3});
  // Channel 0: weights 0.5, -0.25, ...; channel 1: scaled by 2.
  std::vector<float> w = {0.5f, -0.25f, 0.75f, 1.0f, 0.0f, -1.0f, 0.25f, 0.5f, -0.5f};
  for (int i = 0; i < 9; ++i) w.push_back(2 * w[i]);
  Value* filter = b.Constant("w", Tensor::FromVector(DataType::kFloat, {2, 1, 3, 3}, w));
  Value* bias = b.Constant("b", Tensor::FromVector<float>(DataType::kFloat, {2}, {1.0f, -2.0f}));
  b.Output(b.Relu(b.Conv2D(x, filter, bias, {}, "conv"), "relu"));
  auto graph = b.Build();
  const auto layers = PlanDefault(*graph);
  QuantRecord record{{"conv", Weighted(0.5f, 3, {1.0f / 128, 1.0f / 64})}};
  auto deploy = ge::quant::BuildDeployGraph(*graph, layers, record, {.fuse_quant_conv = false});

  const Node& quant = NodeNamed(*deploy, "conv_quant");
  CHECK(quant.op_type() == "AscendQuant");
  CHECK(quant.attrs().GetFloat("scale") == 2.0f);  // 1 / scale_d
  CHECK(quant.attrs().GetFloat("offset") == 3.0f);
  CHECK(quant.attrs().GetInt("dst_type") == 2);
  CHECK(quant.input(0)->name() == "x");
  CHECK(quant.output(0)->dtype() == DataType::kInt8);
  CHECK(LayerTag(quant) == "conv");

  const Node& conv = NodeNamed(*deploy, "conv");
  CHECK(conv.op_type() == "Conv2D");
  CHECK(conv.input(0) == quant.output(0));
  CHECK(conv.attrs().GetInt("offset_x") == 3);
  CHECK(conv.input(1)->dtype() == DataType::kInt8);
  // clamp(rint(w / scale_w), -128, 127): channel 0 at 1/128, channel 1 (2w) at 1/64: the same codes.
  const std::vector<int8_t> codes = {64, -32, 96, 127, 0, -128, 32, 64, -64,   // channel 0
                                     64, -32, 96, 127, 0, -128, 32, 64, -64};  // channel 1
  CHECK(ConstantValues<int8_t>(conv.input(1)) == codes);
  // bias / (scale_w * scale_d): 1 / (1/128 * 0.5) = 256; -2 / (1/64 * 0.5) = -256.
  CHECK(conv.input(2)->dtype() == DataType::kInt32);
  CHECK(ConstantValues<int32_t>(conv.input(2)) == std::vector<int32_t>{256, -256});
  CHECK(conv.output(0)->name() == "conv_int32");
  CHECK(conv.output(0)->dtype() == DataType::kInt32);
  CHECK(LayerTag(conv) == "conv");

  const Node& dequant = NodeNamed(*deploy, "conv_dequant");
  CHECK(dequant.op_type() == "AscendDequant");
  CHECK(dequant.input(0) == conv.output(0));
  CHECK(dequant.attrs().GetInt("channel_axis") == 1);
  CHECK(dequant.attrs().GetInt("dtype") == 0);
  CHECK_FALSE(dequant.attrs().GetBool("relu_flag"));
  // deq_scale = scale_d * scale_w as fp32 bits, shift 0: 2^-8 = 0x3B800000, 2^-7 = 0x3C000000.
  CHECK(ConstantValues<uint64_t>(dequant.input(1)) == std::vector<uint64_t>{0x3B800000u, 0x3C000000u});
  CHECK(dequant.output(0)->name() == "conv");  // the float tensor keeps the layer's name
  CHECK(dequant.output(0)->dtype() == DataType::kFloat);
  CHECK(dequant.output(0)->shape() == Shape{1, 2, 1, 1});
  CHECK(LayerTag(dequant) == "conv");
  CHECK(NodeNamed(*deploy, "relu").input(0) == dequant.output(0));
  // The float weights are gone.
  CHECK(deploy->FindNode("w") == nullptr);
  CHECK(deploy->FindNode("b") == nullptr);
}

TEST_CASE("deploy: the quant scale words pack bits 0-31, 32-39 and 40-48", "[deploy]") {
  CHECK(ge::quant::PackDequantScale(1.0f) == 0x3F800000u);
  CHECK(ge::quant::PackDequantScale(1.0f, 3) == 0x3'3F800000u);
  CHECK(ge::quant::PackRequantScale(0.5f, 5) == ((uint64_t{5} << 40) | 0x3F000000u));
  CHECK(ge::quant::PackRequantScale(0.5f, -1) == ((uint64_t{0x1FF} << 40) | 0x3F000000u));
  CHECK(ge::quant::PackRequantScale(0.5f, -128) == ((uint64_t{0x180} << 40) | 0x3F000000u));
}

TEST_CASE("deploy: MatMulV2 dequantizes along the last axis", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 3});
  Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {3, 2}, {1, -2, 3, 4, -5, 6}));
  b.Output(b.MatMul(x, w, nullptr, false, false, "fc"));
  auto graph = b.Build();
  QuantRecord record{{"fc", Weighted(0.25f, 0, {1.0f / 64, 1.0f / 32})}};
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record);
  const Node& fc = NodeNamed(*deploy, "fc");
  CHECK(ConstantValues<int8_t>(fc.input(1)) == std::vector<int8_t>{64, -64, 127, 127, -128, 127});  // saturated
  const Node& dequant = NodeNamed(*deploy, "fc_dequant");
  CHECK(dequant.attrs().GetInt("channel_axis") == -1);
  CHECK(ConstantValues<uint64_t>(dequant.input(1)) ==
        std::vector<uint64_t>{FloatBits(0.25f / 64), FloatBits(0.25f / 32)});
  REQUIRE(deploy->outputs().size() == 1);
  CHECK(deploy->outputs()[0] == dequant.output(0));
  CHECK(deploy->outputs()[0]->name() == "fc");
}

TEST_CASE("deploy: a layer missing from the record is an error naming it", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 3, 3});
  b.Output(b.Conv2D(x, b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1})), nullptr, {},
                    "conv7"));
  auto graph = b.Build();
  auto [code, message] = ge::test::ErrorOf([&] { ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), {}); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("'conv7'") && Catch::Contains("record has no entry"));
}

TEST_CASE("deploy: an int32 bias overflow is an error suggesting skip_layers", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 3, 3});
  Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1}));
  Value* bias = b.Constant("b", Tensor::FromVector<float>(DataType::kFloat, {1}, {1e6f}));
  b.Output(b.Conv2D(x, w, bias, {}, "big_bias"));
  auto graph = b.Build();
  // 1e6 / (1e-3 * 1e-3) = 1e12 > 2^31.
  QuantRecord record{{"big_bias", Weighted(1e-3f, 0, {1e-3f})}};
  auto [code, message] = ge::test::ErrorOf([&] { ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message,
             Catch::Contains("'big_bias'") && Catch::Contains("overflows int32") && Catch::Contains("skip_layers"));
}

TEST_CASE("deploy: layers reading one tensor with the same factors share one AscendQuant", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 3, 3});
  Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {0.5f}));
  Value* a = b.Conv2D(x, w, nullptr, {}, "a");
  Value* c = b.Conv2D(x, w, nullptr, {}, "c");
  Value* d = b.Conv2D(x, w, nullptr, {}, "d");
  b.Outputs({a, c, d});
  auto graph = b.Build();
  QuantRecord record{{"a", Weighted(0.1f, 1, {0.5f / 127})},
                     {"c", Weighted(0.1f, 1, {0.5f / 127})},
                     {"d", Weighted(0.2f, 1, {0.5f / 127})}};
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record);
  CHECK(CountOps(*deploy, "AscendQuant") == 2);
  CHECK(NodeNamed(*deploy, "a").input(0) == NodeNamed(*deploy, "c").input(0));
  CHECK(NodeNamed(*deploy, "a").input(0) != NodeNamed(*deploy, "d").input(0));
}

TEST_CASE("deploy: two tensor inputs are both quantized, deq_scale is their product", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 3, 4});
  Value* y = b.Input("y", DataType::kFloat, {2, 4, 5});
  b.Output(b.BatchMatMul(x, y, false, false, "mm"));
  auto graph = b.Build();
  LayerRecord r = TensorOnly(0.5f, 0);
  r.second_activation = ActivationQuantParams{0.125f, 0, QuantDType::kInt8};
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), {{"mm", r}});
  const Node& mm = NodeNamed(*deploy, "mm");
  REQUIRE(mm.input(0)->producer()->op_type() == "AscendQuant");
  REQUIRE(mm.input(1)->producer()->op_type() == "AscendQuant");
  CHECK(mm.input(0)->producer()->attrs().GetFloat("scale") == 2.0f);
  CHECK(mm.input(1)->producer()->attrs().GetFloat("scale") == 8.0f);
  CHECK(mm.attrs().GetInt("offset_x") == 0);
  const Node& dequant = NodeNamed(*deploy, "mm_dequant");
  CHECK(ConstantValues<uint64_t>(dequant.input(1)) == std::vector<uint64_t>{FloatBits(0.0625f)});
  CHECK(dequant.output(0)->name() == "mm");

  LayerRecord asymmetric = r;
  asymmetric.activation->offset = 3;
  auto [code, message] = ge::test::ErrorOf([&] {
    ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), {{"mm", asymmetric}});
  });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("INT8 symmetric only"));
}

TEST_CASE("deploy: pooling runs on int8 between AscendQuant and AscendAntiQuant", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 4, 4});
  Value* max = b.MaxPool(x, {}, "max");
  Value* avg = b.AvgPool(x, {}, true, "avg");
  b.Outputs({max, avg});
  auto graph = b.Build();
  QuantRecord record{{"max", TensorOnly(0.5f, -4)}, {"avg", TensorOnly(0.25f, 2)}};
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record);
  const Node& pool = NodeNamed(*deploy, "max");
  CHECK(pool.input(0)->producer()->name() == "max_quant");
  CHECK(pool.output(0)->dtype() == DataType::kInt8);
  CHECK(pool.output(0)->name() == "max_int8");
  const Node& anti = NodeNamed(*deploy, "max_antiquant");
  CHECK(anti.op_type() == "AscendAntiQuant");
  CHECK(anti.attrs().GetFloat("scale") == 0.5f);
  CHECK(anti.attrs().GetFloat("offset") == 4.0f);  // (q - offset_d) * scale_d
  CHECK(anti.output(0)->name() == "max");
  CHECK(deploy->outputs()[0] == anti.output(0));
  CHECK(NodeNamed(*deploy, "avg").attrs().GetInt("offset_x") == 2);
  CHECK(LayerTag(NodeNamed(*deploy, "avg_antiquant")) == "avg");
}

TEST_CASE("deploy: Add quantizes its one tensor input", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 2});
  Value* c = b.Constant("c", Tensor::FromVector<float>(DataType::kFloat, {2, 2}, {1, 2, 3, 4}));
  b.Output(b.Add(c, x, "add"));
  auto graph = b.Build();
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), {{"add", TensorOnly(0.5f, 1)}});
  const Node& add = NodeNamed(*deploy, "add");
  CHECK(add.input(0)->name() == "c");
  const Node* anti = add.input(1)->producer();
  REQUIRE(anti->op_type() == "AscendAntiQuant");
  CHECK(anti->input(0)->producer()->op_type() == "AscendQuant");
  CHECK(anti->input(0)->producer()->input(0)->name() == "x");
  CHECK(add.output(0)->name() == "add");
}

TEST_CASE("deploy: AscendAntiQuant feeding an AscendQuant with reciprocal factors is bypassed", "[deploy]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 4, 4});
  Value* pool = b.MaxPool(x, {}, "pool");
  Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {0.5f}));
  Value* same = b.Conv2D(pool, w, nullptr, {}, "same");
  Value* other = b.Conv2D(pool, w, nullptr, {}, "other");
  b.Outputs({same, other});
  auto graph = b.Build();
  QuantRecord record{{"pool", TensorOnly(0.1f, 3)},
                     {"same", Weighted(0.1f, 3, {0.5f / 127})},
                     {"other", Weighted(0.2f, 3, {0.5f / 127})}};
  auto deploy = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record);
  CHECK(NodeNamed(*deploy, "same").input(0) == NodeNamed(*deploy, "pool").output(0));  // int8 flows through
  const Node* other_quant = NodeNamed(*deploy, "other").input(0)->producer();
  CHECK(other_quant->op_type() == "AscendQuant");
  CHECK(other_quant->input(0)->producer()->op_type() == "AscendAntiQuant");
  CHECK(CountOps(*deploy, "AscendQuant") == 2);  // the pool's and "other"'s

  // For layer-wise comparison the pool's float output stays.
  auto plain = ge::quant::BuildDeployGraph(*graph, PlanDefault(*graph), record, {.requant_fusion = false});
  CHECK(NodeNamed(*plain, "same").input(0)->producer()->op_type() == "AscendQuant");
  CHECK(NodeNamed(*plain, "pool_antiquant").output(0)->name() == "pool");
}

namespace {

// x -> conv1 (3x3, pad 1, bias) -> Relu -> conv2 (3x3) -> y.
std::unique_ptr<Graph> ConvReluConv(const Tensor& w1, const Tensor& b1, const Tensor& w2) {
  ge::GraphBuilder b("conv_relu_conv");
  Value* x = b.Input("x", DataType::kFloat, {1, 2, 6, 6});
  ge::Conv2DOptions padded;
  padded.pads = {1, 1, 1, 1};
  Value* c1 = b.Conv2D(x, b.Constant("w1", w1), b.Constant("b1", b1), padded, "conv1");
  b.Output(b.Conv2D(b.Relu(c1, "relu"), b.Constant("w2", w2), nullptr, {}, "conv2"));
  return b.Build();
}

}  // namespace

TEST_CASE("deploy: requant fusion merges Dequant + Relu + Quant into AscendRequant", "[deploy]") {
  Tensor w1(DataType::kFloat, {3, 2, 3, 3});
  Tensor w2(DataType::kFloat, {2, 3, 3, 3});
  Tensor b1(DataType::kFloat, {3});
  auto graph = ConvReluConv(w1, b1, w2);
  QuantRecord record{{"conv1", Weighted(0.5f, 1, {0.25f, 0.125f, 0.0625f})}, {"conv2", Weighted(0.125f, -2, {0.5f})}};
  const auto layers = PlanDefault(*graph);

  auto fused = ge::quant::BuildDeployGraph(*graph, layers, record, {.fuse_quant_conv = false});
  CHECK(CountOps(*fused, "Relu") == 0);
  CHECK(CountOps(*fused, "AscendDequant") == 1);  // conv2's
  CHECK(CountOps(*fused, "AscendQuant") == 1);    // conv1's input
  const Node& requant = NodeNamed(*fused, "conv1_requant");
  CHECK(requant.op_type() == "AscendRequant");
  CHECK(requant.attrs().GetBool("relu_flag"));
  CHECK(requant.attrs().GetInt("channel_axis") == 1);
  CHECK(requant.input(0) == NodeNamed(*fused, "conv1").output(0));
  CHECK(requant.output(0)->dtype() == DataType::kInt8);
  CHECK(NodeNamed(*fused, "conv2").input(0) == requant.output(0));
  // req_scale = scale_d1 * scale_w1[c] / scale_d2 with offset_d2 = -2 (0x1FE in 9 bits) at bit 40.
  const uint64_t offset_bits = uint64_t{0x1FE} << 40;
  CHECK(ConstantValues<uint64_t>(requant.input(1)) == std::vector<uint64_t>{offset_bits | FloatBits(1.0f),
                                                                            offset_bits | FloatBits(0.5f),
                                                                            offset_bits | FloatBits(0.25f)});

  auto plain = ge::quant::BuildDeployGraph(*graph, layers, record, {.requant_fusion = false});
  CHECK(CountOps(*plain, "AscendRequant") == 0);
  CHECK(CountOps(*plain, "Relu") == 1);
  CHECK(NodeNamed(*plain, "relu").input(0)->name() == "conv1");

  SECTION("INT16 quants are not fused") {
    record["conv2"].activation->dst_type = QuantDType::kInt16;
    auto int16 = ge::quant::BuildDeployGraph(*graph, layers, record);
    CHECK(CountOps(*int16, "AscendRequant") == 0);
  }
  SECTION("skip_fusion keeps the layer unfused") {
    record["conv1"].skip_fusion = true;
    auto skipped = ge::quant::BuildDeployGraph(*graph, layers, record);
    CHECK(CountOps(*skipped, "AscendRequant") == 0);
    // conv1 keeps its own AscendDequant; conv2 and its dequant still fold into a QuantConv2D.
    CHECK(CountOps(*skipped, "AscendDequant") == 1);
    CHECK(CountOps(*skipped, "QuantConv2D") == 1);
    CHECK(NodeNamed(*skipped, "conv1").op_type() == "Conv2D");
  }
}

namespace {

// Deterministic pseudo-random integers in [lo, hi].
class Lcg {
 public:
  explicit Lcg(uint32_t seed) : state_(seed) {}
  int Next(int lo, int hi) {
    state_ = state_ * 1664525u + 1013904223u;
    return lo + static_cast<int>((state_ >> 8) % static_cast<uint32_t>(hi - lo + 1));
  }

 private:
  uint32_t state_;
};

// Integer convolution of NCHW int64 codes (x - offset_x, padded taps 0) plus an int64 bias.
std::vector<int64_t> IntegerConv(const std::vector<int64_t>& x, int64_t offset_x, int64_t c_in, int64_t h, int64_t w,
                                 const std::vector<int64_t>& filter, int64_t c_out, int64_t k, int64_t pad,
                                 const std::vector<int64_t>& bias, int64_t& out_h) {
  out_h = h + 2 * pad - k + 1;
  const int64_t out_w = w + 2 * pad - k + 1;
  std::vector<int64_t> y(static_cast<size_t>(c_out * out_h * out_w));
  for (int64_t co = 0; co < c_out; ++co) {
    for (int64_t oy = 0; oy < out_h; ++oy) {
      for (int64_t ox = 0; ox < out_w; ++ox) {
        int64_t acc = bias.empty() ? 0 : bias[co];
        for (int64_t ci = 0; ci < c_in; ++ci) {
          for (int64_t ky = 0; ky < k; ++ky) {
            for (int64_t kx = 0; kx < k; ++kx) {
              const int64_t iy = oy + ky - pad, ix = ox + kx - pad;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              acc += (x[(ci * h + iy) * w + ix] - offset_x) * filter[((co * c_in + ci) * k + ky) * k + kx];
            }
          }
        }
        y[(co * out_h + oy) * out_w + ox] = acc;
      }
    }
  }
  return y;
}

int64_t Saturate(double v, int64_t lo, int64_t hi) { return std::clamp(static_cast<int64_t>(v), lo, hi); }

}  // namespace

// The data sit on grids where every product of the deploy graph is exact in
// float32 (power-of-two scales), so the deploy output must equal a float64
// replay of the integer arithmetic up to float rounding, fused or not.
TEST_CASE("deploy: quantized Conv2D + Relu + Conv2D runs like its integer reference", "[deploy][numerics]") {
  Lcg random(7);
  const float s1 = 1.0f / 16;
  const int32_t o1 = 5;
  const std::vector<float> sw1 = {1.0f / 128, 1.0f / 64, 1.0f / 64};
  const float sw2 = 1.0f / 64;
  std::vector<int64_t> q_w1(54), q_w2(54);
  std::vector<float> w1(54), w2(54);
  for (size_t i = 0; i < 54; ++i) {
    q_w1[i] = random.Next(-100, 100);
    w1[i] = static_cast<float>(q_w1[i]) * sw1[i / 18];
    q_w2[i] = random.Next(-100, 100);
    w2[i] = static_cast<float>(q_w2[i]) * sw2;
  }
  const std::vector<int64_t> q_b1 = {100, -50, 7};
  std::vector<float> b1(3);
  for (size_t c = 0; c < 3; ++c) b1[c] = static_cast<float>(q_b1[c]) * s1 * sw1[c];
  // x = k/8 + 1/64: x / s1 = 2k + 0.25 never ties.
  std::vector<float> x(72);
  std::vector<int64_t> q_x(72);
  for (size_t i = 0; i < x.size(); ++i) {
    const int k = random.Next(-16, 16);
    x[i] = static_cast<float>(k) / 8 + 1.0f / 64;
    q_x[i] = 2 * k + o1;
  }

  // conv1 in integers, its float output, then the scale of conv2's input so that it does not saturate.
  int64_t h1 = 0;
  const std::vector<int64_t> acc1 = IntegerConv(q_x, o1, 2, 6, 6, q_w1, 3, 3, 1, q_b1, h1);
  std::vector<double> y1(acc1.size());
  double y1_max = 0;
  for (size_t i = 0; i < acc1.size(); ++i) {
    y1[i] = std::max(0.0, static_cast<double>(acc1[i]) * s1 * sw1[i / 36]);
    y1_max = std::max(y1_max, y1[i]);
  }
  const auto s2 = static_cast<float>(std::exp2(std::ceil(std::log2(y1_max / 100))));
  // AscendQuant rounds x / scale + offset, AscendRequant rounds before adding the offset: with an even
  // offset both give the same half-to-even result at the ties this grid has.
  const int32_t o2 = -4;
  std::vector<int64_t> q_y1(y1.size());
  for (size_t i = 0; i < y1.size(); ++i) q_y1[i] = Saturate(std::nearbyint(y1[i] / s2 + o2), -128, 127);
  int64_t h2 = 0;
  const std::vector<int64_t> acc2 = IntegerConv(q_y1, o2, 3, 6, 6, q_w2, 2, 3, 0, {}, h2);
  REQUIRE(h2 == 4);

  auto graph = ConvReluConv(Tensor::FromVector(DataType::kFloat, {3, 2, 3, 3}, w1),
                            Tensor::FromVector(DataType::kFloat, {3}, b1),
                            Tensor::FromVector(DataType::kFloat, {2, 3, 3, 3}, w2));
  QuantRecord record{{"conv1", Weighted(s1, o1, sw1)}, {"conv2", Weighted(s2, o2, {sw2})}};
  const auto layers = PlanDefault(*graph);
  const Tensor input = Tensor::FromVector(DataType::kFloat, {1, 2, 6, 6}, x);
  auto float_model = ge::CompiledModel::Compile(graph->Clone());
  const Tensor float_y = float_model->Run({input})[0];

  for (bool fusion : {false, true}) {
    INFO("requant fusion " << fusion);
    auto model =
        ge::CompiledModel::Compile(ge::quant::BuildDeployGraph(*graph, layers, record, {.requant_fusion = fusion}));
    const Tensor y = model->Run({input})[0];
    REQUIRE(y.shape() == Shape{1, 2, 4, 4});
    double max_error = 0, max_float = 0, max_quant_error = 0;
    for (size_t i = 0; i < acc2.size(); ++i) {
      const double got = y.data_as<float>()[i];
      const double reference = float_y.data_as<float>()[i];
      max_error = std::max(max_error, std::fabs(got - static_cast<double>(acc2[i]) * s2 * sw2));
      max_quant_error = std::max(max_quant_error, std::fabs(got - reference));
      max_float = std::max(max_float, std::fabs(reference));
    }
    CHECK(max_error <= 1e-6 * std::max(1.0, max_float));
    // Against the float graph: within the quantization error (a few percent of the range here).
    CHECK(max_quant_error < 0.05 * max_float);

    // On the CPU the int8 convolutions run channels-last (nhwc_layout); NCHW with reorders gives the same bits.
    for (const Node* node : model->graph().nodes()) {
      if (node->op_type() == "QuantConv2D") CHECK(node->attrs().GetString("data_format") == "NHWC");
    }
    auto nchw = ge::CompiledModel::Compile(ge::quant::BuildDeployGraph(*graph, layers, record, {.requant_fusion = fusion}),
                                           {{"ge.disablePasses", "nhwc_layout"}});
    const Tensor y_nchw = nchw->Run({input})[0];
    REQUIRE(y_nchw.nbytes() == y.nbytes());
    CHECK(std::memcmp(y_nchw.data(), y.data(), y.nbytes()) == 0);
  }
  // With requant fusion both convolutions are QuantConv2D; the int8 tensor between them stays NHWC.
  auto fused = ge::CompiledModel::Compile(ge::quant::BuildDeployGraph(*graph, layers, record, {.requant_fusion = true}));
  CHECK(CountOps(fused->graph(), "QuantConv2D") == 2);
  CHECK(CountOps(fused->graph(), "TransposeD") == 2);
}
