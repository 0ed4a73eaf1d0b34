// Requant fusion through ClipByValue (Relu6): the clip is absorbed only when
// the next AscendQuant saturates at or below its upper bound and its lower
// bound is 0 (relu_flag) or at/below the quant's lowest value. The numerics
// run a chain where the deploy output reveals the int8 code handed to the
// second layer, checked against a float64 replay of the documented formulas:
//   AscendQuant:   code = sat(rint(v / scale_d + offset_d))
//   AscendRequant: code = sat(rint(max(v, 0) / scale_d) + offset_d)   (rounds before adding the offset)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cfloat>
#include <cmath>
#include <string>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "quant/deploy_rewrite.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"
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
using ge::quant::QuantRecord;
using ge::quant::WeightQuantParams;

using ge::test::CountOps;

namespace {

// conv1 (1x1 over x with weight w) -> ClipByValue(lo, hi) "relu6"; returns the clip's output.
Value* Conv1Relu6(ge::GraphBuilder& b, Value* x, Value* w, float lo, float hi) {
  return b.Op("ClipByValue",
              {b.Conv2D(x, w, nullptr, {}, "conv1"),
               b.Constant("lo", Tensor::FromVector<float>(DataType::kFloat, Shape{}, {lo})),
               b.Constant("hi", Tensor::FromVector<float>(DataType::kFloat, Shape{}, {hi}))},
              {}, 1, "relu6")[0];
}

// x [1, 1, 16, 16] -> conv1 (1x1, weight 1.5) -> ClipByValue(lo, hi) "relu6" -> conv2 (1x1, weight 1) -> y.
std::unique_ptr<Graph> ConvClipConv(float lo, float hi) {
  ge::GraphBuilder b("conv_clip_conv");
  Value* x = b.Input("x", DataType::kFloat, {1, 1, 16, 16});
  Value* clip = Conv1Relu6(b, x, b.Constant("w1", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1.5f})),
                           lo, hi);
  b.Output(b.Conv2D(clip, b.Constant("w2", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1.0f})),
                    nullptr, {}, "conv2"));
  return b.Build();
}

// Weight codes: 1.5 at scale 1/64 is 96, 1 is 64; both exact.
constexpr float kWeightScale = 1.0f / 64;
constexpr float kScale1 = 1.0f / 16;  // conv1's input: x = k / 16 is code k
constexpr float kScale2 = 1.0f / 16;  // conv2's input

QuantRecord Record(int32_t offset2, QuantDType type2 = QuantDType::kInt8) {
  auto layer = [](float scale_d, int32_t offset_d, QuantDType type) {
    LayerRecord record;
    record.activation = ActivationQuantParams{scale_d, offset_d, type};
    record.weights = WeightQuantParams{{kWeightScale}, {0}, 8};
    return record;
  };
  return {{"conv1", layer(kScale1, 0, QuantDType::kInt8)}, {"conv2", layer(kScale2, offset2, type2)}};
}

std::unique_ptr<Graph> Deploy(const Graph& graph, const QuantRecord& record, bool fusion) {
  const auto layers = ge::quant::PlanQuantLayers(graph, ge::quant::QuantConfig());
  for (const auto& layer : layers) REQUIRE(layer.quantize);
  return ge::quant::BuildDeployGraph(graph, layers, record, {.requant_fusion = fusion, .fuse_quant_conv = false});
}

// Every int8 code k of conv1's input once: x = k / 16, k = -128..127.
Tensor AllCodes() {
  Tensor x(DataType::kFloat, {1, 1, 16, 16});
  for (int k = -128; k < 128; ++k) x.data_as<float>()[k + 128] = static_cast<float>(k) * kScale1;
  return x;
}

// The int8 codes conv2 read: y = (code - offset2) * scale2 (its weight is 1, all steps exact).
std::vector<int> CodesSeenByConv2(std::unique_ptr<Graph> deploy, int32_t offset2) {
  const Tensor y = ge::CompiledModel::Compile(std::move(deploy))->Run({AllCodes()})[0];
  REQUIRE(y.num_elements() == 256);
  std::vector<int> codes;
  for (int64_t i = 0; i < 256; ++i) {
    const double code = y.data_as<float>()[i] / kScale2 + offset2;
    REQUIRE(code == std::nearbyint(code));
    codes.push_back(static_cast<int>(code));
  }
  return codes;
}

int Saturate(double v) { return static_cast<int>(std::clamp(v, -128.0, 127.0)); }

}  // namespace

TEST_CASE("requant fusion: a clip the next quant saturates anyway becomes relu_flag", "[deploy][requant]") {
  // conv2's quant: scale 1/scale_d = 16, so 127 is reached from (127 - offset_d) / 16 on.
  struct Case {
    float lo, hi;
    int32_t offset2;
    bool fused, relu_flag;
  };
  const Case cases[] = {
      {0, 6, 31, true, true},               // saturates exactly at 96 / 16 = 6
      {0, 6, 32, true, true},               // 95 / 16 < 6
      {0, 6, 30, false, false},             // 97 / 16 > 6: the clip caps the codes at 126
      {0, 100, -128, true, false},          // 255 / 16 < 100; 0 is already the lowest value
      {-10, 6, 32, true, false},            // the lowest value (-128 - 32) / 16 = -10 is at the bound
      {-FLT_MAX, FLT_MAX, 0, true, false},  // a clip with no bounds at all
      {-9.9375f, 6, 32, false, false},      // one step above the lowest value: it cuts
      {0.0625f, 6, 32, false, false},       // a positive lower bound is not a Relu
  };
  for (const Case& c : cases) {
    INFO("clip [" << c.lo << ", " << c.hi << "], offset_d " << c.offset2);
    auto graph = ConvClipConv(c.lo, c.hi);
    auto deploy = Deploy(*graph, Record(c.offset2), true);
    CHECK(CountOps(*deploy, "ClipByValue") == (c.fused ? 0u : 1u));
    CHECK(CountOps(*deploy, "AscendRequant") == (c.fused ? 1u : 0u));
    CHECK(CountOps(*deploy, "AscendDequant") == (c.fused ? 1u : 2u));
    if (c.fused) {
      const Node* requant = deploy->FindNode("conv1_requant");
      REQUIRE(requant != nullptr);
      CHECK(requant->attrs().GetBool("relu_flag") == c.relu_flag);
      CHECK(deploy->FindNode("conv2")->input(0) == requant->output(0));
    }
  }
}

TEST_CASE("requant fusion: the clip stays for INT16, skip_fusion and a second float reader", "[deploy][requant]") {
  SECTION("INT16 quant") {
    auto graph = ConvClipConv(0, 6);
    auto deploy = Deploy(*graph, Record(31, QuantDType::kInt16), true);
    CHECK(CountOps(*deploy, "AscendRequant") == 0);
    CHECK(CountOps(*deploy, "ClipByValue") == 1);
  }
  for (const char* skipped : {"conv1", "conv2"}) {
    SECTION(std::string("skip_fusion on ") + skipped) {
      auto graph = ConvClipConv(0, 6);
      QuantRecord record = Record(31);
      record[skipped].skip_fusion = true;
      auto deploy = Deploy(*graph, record, true);
      CHECK(CountOps(*deploy, "AscendRequant") == 0);
      CHECK(CountOps(*deploy, "ClipByValue") == 1);
    }
  }
  SECTION("the clip's output is also a graph output") {
    ge::GraphBuilder b;
    Value* x = b.Input("x", DataType::kFloat, {1, 1, 4, 4});
    Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1.5f}));
    Value* clip = Conv1Relu6(b, x, w, 0, 6);
    b.Outputs({clip, b.Conv2D(clip, w, nullptr, {}, "conv2")});
    auto graph = b.Build();
    auto deploy = Deploy(*graph, Record(31), true);
    CHECK(CountOps(*deploy, "AscendRequant") == 0);
    CHECK(CountOps(*deploy, "ClipByValue") == 1);
  }
  SECTION("two readers with different factors") {
    ge::GraphBuilder b;
    Value* x = b.Input("x", DataType::kFloat, {1, 1, 4, 4});
    Value* w = b.Constant("w", Tensor::FromVector<float>(DataType::kFloat, {1, 1, 1, 1}, {1.5f}));
    Value* clip = Conv1Relu6(b, x, w, 0, 6);
    b.Outputs({b.Conv2D(clip, w, nullptr, {}, "conv2"), b.Conv2D(clip, w, nullptr, {}, "conv3")});
    auto graph = b.Build();
    QuantRecord record = Record(31);
    record["conv3"] = record["conv2"];
    record["conv3"].activation->offset = 32;  // saturates below 6 too, but a different quant
    auto deploy = Deploy(*graph, record, true);
    CHECK(CountOps(*deploy, "AscendRequant") == 0);
    CHECK(CountOps(*deploy, "ClipByValue") == 1);
    record["conv3"].activation->offset = 31;  // the same factors: one shared quant, fused
    auto shared = Deploy(*graph, record, true);
    CHECK(CountOps(*shared, "AscendRequant") == 1);
    CHECK(CountOps(*shared, "ClipByValue") == 0);
  }
}

// conv1 gives v = 1.5 k / 16 for every code k, so v / scale2 = 1.5 k: ties
// at odd k, values from -192 to 190.5, far past both saturation limits.
TEST_CASE("requant fusion: fused Relu6 chains match unfused ones up to ties with an odd offset",
          "[deploy][requant][numerics]") {
  for (int32_t offset2 : {31, 32, 30}) {
    INFO("offset_d of conv2 " << offset2);
    auto graph = ConvClipConv(0, 6);
    const std::vector<int> unfused = CodesSeenByConv2(Deploy(*graph, Record(offset2), false), offset2);
    const std::vector<int> fused = CodesSeenByConv2(Deploy(*graph, Record(offset2), true), offset2);
    for (int k = -128; k < 128; ++k) {
      INFO("k " << k);
      const double v = 1.5 * k;  // conv1's output over scale2
      const int clipped = Saturate(std::nearbyint(std::clamp(v, 0.0, 96.0) + offset2));
      CHECK(unfused[static_cast<size_t>(k + 128)] == clipped);
      if (offset2 == 30) {
        // 6 / scale2 + 30 = 126: the clip cuts below saturation, so it must stay.
        CHECK(fused[static_cast<size_t>(k + 128)] == clipped);
        continue;
      }
      // AscendRequant: relu, round, then add the offset.
      const int requantized = Saturate(std::nearbyint(std::max(v, 0.0)) + offset2);
      CHECK(fused[static_cast<size_t>(k + 128)] == requantized);
      // Only a tie (v = n + 1/2) with an odd offset rounds differently, by one code:
      // rint(n + 1/2 + odd) goes to the other even neighbour than rint(n + 1/2) + odd.
      const bool odd_tie = offset2 % 2 != 0 && v != std::floor(v) && v > 0 && v + offset2 < 127;
      CHECK(std::abs(requantized - clipped) == (odd_tie ? 1 : 0));
    }
  }
}
