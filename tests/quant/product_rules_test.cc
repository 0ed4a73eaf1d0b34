// --soc_version: CANN's spellings name the product families, and each of the
// seed's product rules decides layers on a small graph: IPV350's own table,
// weight-only availability (FFN's too), the two-tensor BatchMatMulV2 note,
// and the report naming the table.
#include "quant/product_rules.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/error.h"
#include "plan_support.h"
#include "quant/layer_support.h"
#include "quant/quant_config.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;
using ge::Value;
using ge::quant::ProductFamily;
using ge::quant::ProductFromSocVersion;
using ge::quant::QuantLayer;
using ge::test::Layer;
using ge::test::Ramp;

namespace {

// An ONNX-like graph: Conv, ConvTranspose, a Gemm, a two-tensor BatchMatMulV2.
std::vector<QuantLayer> PlanFor(const std::string& soc_version, const std::string& config = "") {
  ge::GraphBuilder b;
  Value* image = b.Input("image", DataType::kFloat, {1, 3, 8, 8});
  b.Output(b.Conv2D(image, b.Constant("f", Ramp({4, 3, 3, 3})), nullptr, {}, "conv"));
  Value* size = b.Constant("size", Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {1, 2, 10, 10}));
  b.Output(b.Op("Conv2DTranspose", {size, image, b.Constant("g", Ramp({3, 2, 3, 3}))},
                {{"strides", std::vector<int64_t>{1, 1, 1, 1}}, {"pads", std::vector<int64_t>{0, 0, 0, 0}}}, 1,
                "deconv")[0]);
  Value* x = b.Input("x", DataType::kFloat, {2, 4});
  b.Output(b.MatMul(x, b.Constant("w", Ramp({4, 5})), nullptr, false, false, "gemm"));
  Value* a = b.Input("a", DataType::kFloat, {2, 3, 4});
  b.Output(b.BatchMatMul(a, b.Input("c", DataType::kFloat, {2, 4, 5}), false, false, "bmm"));
  std::unique_ptr<ge::Graph> graph = b.Build();
  return ge::quant::PlanQuantLayers(*graph, ge::quant::ParseQuantConfig(config, "test.cfg"),
                                    ProductFromSocVersion(soc_version));
}

}  // namespace

TEST_CASE("soc_version: CANN's spellings name the product families", "[quant][product]") {
  const std::vector<std::pair<std::string, ProductFamily>> cases = {
      {"", ProductFamily::kCpu},
      {"CPU", ProductFamily::kCpu},
      {"Ascend310", ProductFamily::kAtlas200_300_500},
      {"Ascend310P3", ProductFamily::kAtlasInference},
      {"Ascend310B1", ProductFamily::kAtlas200I500A2},
      {"Ascend910", ProductFamily::kAtlasTraining},
      {"Ascend910ProB", ProductFamily::kAtlasTraining},
      {"Ascend910B", ProductFamily::kAtlasTraining},  // the training-series chip; its A2 successors are Ascend910B1..B4
      {"Ascend910B3", ProductFamily::kAtlasA2},
      {"Ascend910_9391", ProductFamily::kAtlasA3},
      {"IPV350", ProductFamily::kIpv350},
  };
  for (const auto& [spelling, family] : cases) {
    INFO(spelling);
    CHECK(ProductFromSocVersion(spelling).family == family);
  }
  for (const char* bad : {"Ascend", "Ascend310X", "ascend910b1", "GPU"}) {
    INFO(bad);
    const auto [code, message] = ge::test::ErrorOf([&] { ProductFromSocVersion(bad); });
    CHECK(code == ge::ErrorCode::kInvalidArgument);
    CHECK_THAT(message, Catch::Contains(std::string("'") + bad + "'") && Catch::Contains("Ascend910B1") &&
                            Catch::Contains("IPV350"));
  }
}

TEST_CASE("soc_version IPV350: its own table replaces ONNX's", "[quant][product]") {
  const auto cpu = PlanFor("");
  CHECK(Layer(cpu, "conv").quantize);
  CHECK(Layer(cpu, "gemm").quantize);
  CHECK_THAT(Layer(cpu, "conv").rule, Catch::StartsWith("ONNX Conv: "));

  const auto ipv350 = PlanFor("IPV350");
  for (const char* name : {"conv", "gemm", "bmm"}) {
    INFO(name);
    CHECK_FALSE(Layer(ipv350, name).quantize);
    CHECK_THAT(Layer(ipv350, name).reason,
               Catch::EndsWith("is not a quantizable layer (IPV350's table for ONNX: ConvTranspose)"));
  }
  const QuantLayer& deconv = Layer(ipv350, "deconv");
  CHECK(deconv.quantize);
  CHECK_THAT(deconv.rule, Catch::StartsWith("IPV350 table: ONNX ConvTranspose: dilation = 1"));
}

TEST_CASE("soc_version: weight-only on Atlas inference and A2 only and FFN's on A2 only", "[quant][product]") {
  const std::string weight_only = "common_config { weight_compress_only: true }\n";
  for (const char* soc : {"", "Ascend310P3", "Ascend910B1"}) {
    INFO(soc);
    CHECK(Layer(PlanFor(soc, weight_only), "gemm").quantize);
  }
  for (const char* soc : {"Ascend310", "Ascend910", "Ascend910_9391", "Ascend310B1", "IPV350"}) {
    INFO(soc);
    const auto layers = PlanFor(soc, weight_only);
    const QuantLayer& gemm = Layer(layers, "gemm");
    CHECK_FALSE(gemm.quantize);
    CHECK_THAT(gemm.reason, Catch::StartsWith("weight-only quantization is available on Atlas inference series and "
                                              "Atlas A2 products only, not on"));
  }
  auto ffn = [&](const std::string& soc) {
    ge::GraphBuilder b;
    Value* x = b.Input("x", DataType::kFloat16, {4, 8});
    Value* tokens = b.Constant("tokens", Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {4}));
    b.Output(b.Op("FFN",
                  {x, b.Constant("w1", Ramp({1, 8, 6}, DataType::kFloat16)),
                   b.Constant("w2", Ramp({1, 6, 8}, DataType::kFloat16)), tokens},
                  {{"activation", std::string("relu")}}, 1, "ffn")[0]);
    std::unique_ptr<ge::Graph> graph = b.Build();
    return ge::quant::PlanQuantLayers(*graph, ge::quant::ParseQuantConfig(weight_only, "t"),
                                      ProductFromSocVersion(soc))[0];
  };
  CHECK(ffn("Ascend910B2").quantize);
  const QuantLayer on_inference = ffn("Ascend310P3");
  CHECK_FALSE(on_inference.quantize);
  CHECK_THAT(on_inference.reason, Catch::StartsWith("FFN weight-only quantization is available on Atlas A2 products "
                                                    "only, not on Atlas inference series (--soc_version Ascend310P3)"));
}

TEST_CASE("soc_version: two-tensor BatchMatMulV2 is noted where it loses accuracy", "[quant][product]") {
  for (const char* soc : {"", "Ascend910B1", "Ascend910_9392", "Ascend310B4"}) {
    INFO(soc);
    CHECK(Layer(PlanFor(soc), "bmm").notes.empty());
  }
  for (const char* soc : {"Ascend310P3", "Ascend910", "Ascend310"}) {
    INFO(soc);
    const auto layers = PlanFor(soc);
    const QuantLayer& bmm = Layer(layers, "bmm");
    CHECK(bmm.quantize);  // a warning, not a refusal
    REQUIRE(bmm.notes.size() == 1);
    CHECK_THAT(bmm.notes[0], Catch::StartsWith("two-tensor BatchMatMulV2 quantization pays off only on Atlas A3"));
  }
}
