// The AMCT-style config: defaults, AMCT's priority rules, errors with file,
// line, column and field path, and the edits the fallback makes.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/proto/amct_config.pb.h"
#include "quant/quant_config.h"
#include "test_support.h"

namespace ge::quant {
namespace {

const std::vector<std::string> kConv = {"Conv2D", "Conv"};
const std::vector<std::string> kGemm = {"MatMulV2", "Gemm"};
const std::vector<std::string> kPool = {"MaxPool", "MaxPool"};

TEST_CASE("Default config is AMCT's defaults", "[config]") {
  const QuantConfig config;
  CHECK(config.batch_num() == 1);
  CHECK(config.activation_offset());
  CHECK(config.do_fusion());
  const LayerQuantConfig layer = config.ForLayer("conv1", kConv);
  CHECK_FALSE(layer.skip);
  CHECK(layer.arq.channel_wise);
  CHECK(layer.arq.quant_bits == 8);
  CHECK_FALSE(layer.arq.asymmetric);
  CHECK(layer.activation_algo == ActivationAlgo::kIfmr);
  CHECK(layer.ifmr.search_range_start == 0.7f);
  CHECK(layer.ifmr.search_range_end == 1.3f);
  CHECK(layer.ifmr.search_step == 0.01f);
  CHECK(layer.ifmr.max_percentile == 0.999999f);
  CHECK(layer.ifmr.min_percentile == 0.999999f);
  CHECK(layer.ifmr.asymmetric);
  CHECK(layer.ifmr.dst_type == QuantDType::kInt8);
  CHECK(layer.hfmg.num_of_bins == 4096);
  CHECK_FALSE(layer.weight_compress_only);
  CHECK_FALSE(layer.skip_fusion);
}

const char* const kPriorityConfig = R"(batch_num: 4
activation_offset: false
skip_layers: "fc9"
skip_layer_types: "MaxPool"
skip_fusion_layers: "conv2"
common_config {
  arq_quantize { channel_wise: false }
  ifmr_quantize { search_range_start: 0.8 max_percentile: 0.99 }
}
override_layer_types {
  layer_type: "MatMulV2"
  calibration_config { hfmg_quantize { num_of_bins: 2048 dst_type: INT16 } }
}
override_layer_configs {
  layer_name: "fc1"
  calibration_config { ifmr_quantize { asymmetric: true } }
}
override_layer_configs {
  layer_name: "fc2"
  calibration_config { arq_quantize { quant_bits: 7 } }
}
override_layer_configs {
  layer_name: "conv3"
  calibration_config { arq_quantize { quant_bits: 6 } }
}
)";

TEST_CASE("Config priority: layer override, then type override, then common_config", "[config]") {
  const QuantConfig config = ParseQuantConfig(kPriorityConfig, "cfg.txt");
  CHECK(config.batch_num() == 4);
  CHECK_FALSE(config.activation_offset());

  // common_config, with activation_offset false as the asymmetric default.
  const LayerQuantConfig conv1 = config.ForLayer("conv1", kConv);
  CHECK_FALSE(conv1.skip);
  CHECK_FALSE(conv1.arq.channel_wise);
  CHECK(conv1.ifmr.search_range_start == 0.8f);
  CHECK(conv1.ifmr.max_percentile == 0.99f);
  CHECK_FALSE(conv1.ifmr.asymmetric);
  CHECK_FALSE(conv1.skip_fusion);
  CHECK(config.ForLayer("conv2", kConv).skip_fusion);

  // The type override replaces common_config whole: channel_wise is back to its default.
  const LayerQuantConfig fc0 = config.ForLayer("fc0", kGemm);
  CHECK(fc0.activation_algo == ActivationAlgo::kHfmg);
  CHECK(fc0.hfmg.num_of_bins == 2048);
  CHECK(fc0.hfmg.dst_type == QuantDType::kInt16);
  CHECK(fc0.dst_type() == QuantDType::kInt16);
  CHECK_FALSE(fc0.hfmg.asymmetric);
  CHECK(fc0.arq.channel_wise);

  // The layer override beats the type override of the same layer.
  const LayerQuantConfig fc1 = config.ForLayer("fc1", kGemm);
  CHECK(fc1.activation_algo == ActivationAlgo::kIfmr);
  CHECK(fc1.ifmr.asymmetric);
  CHECK(fc1.ifmr.search_range_start == 0.7f);

  // quant_bits 6/7 only for Conv2D.
  const LayerQuantConfig fc2 = config.ForLayer("fc2", kGemm);
  CHECK(fc2.skip);
  CHECK(fc2.skip_reason == "quant_bits 6 or 7 applies to Conv2D only");
  const LayerQuantConfig conv3 = config.ForLayer("conv3", kConv);
  CHECK_FALSE(conv3.skip);
  CHECK(conv3.arq.quant_bits == 6);

  const LayerQuantConfig fc9 = config.ForLayer("fc9", kGemm);
  CHECK(fc9.skip);
  CHECK(fc9.skip_reason == "skip_layers");
  const LayerQuantConfig pool = config.ForLayer("pool1", kPool);
  CHECK(pool.skip);
  CHECK(pool.skip_reason == "skip_layer_types: MaxPool");
}

TEST_CASE("Config types match by ONNX or Ascend IR name and do_fusion false skips all fusion", "[config]") {
  const QuantConfig config = ParseQuantConfig(R"(do_fusion: false
skip_layer_types: "Gemm"
override_layer_types { layer_type: "Conv" calibration_config { arq_quantize { quant_bits: 7 } } }
)",
                                              "onnx_names.cfg");
  const LayerQuantConfig conv = config.ForLayer("c", kConv);
  CHECK(conv.arq.quant_bits == 7);
  CHECK_FALSE(conv.skip);
  CHECK(conv.skip_fusion);
  CHECK(config.ForLayer("g", kGemm).skip_reason == "skip_layer_types: Gemm");
}

TEST_CASE("Config semantic errors name file, line, column, field path and valid choices", "[config]") {
  const std::string text = R"(batch_num: 2
override_layer_configs {
  layer_name: "conv1"
}
override_layer_configs {
  layer_name: "conv3"
  calibration_config {
    hfmg_quantize {
      num_of_bins: 100
    }
  }
}
)";
  auto [code, message] = test::ErrorOf([&] { ParseQuantConfig(text, "cfg.txt"); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK(message ==
        "cfg.txt:9:7: override_layer_configs[1] (conv3).calibration_config.hfmg_quantize.num_of_bins: "
        "100 is not one of 1024, 2048, 4096, 8192");

  const auto error_of = [](const std::string& config_text) {
    return test::ErrorOf([&] { ParseQuantConfig(config_text, "c.cfg"); }).second;
  };
  CHECK(error_of("common_config {\n  arq_quantize { quant_bits: 5 }\n}\n") ==
        "c.cfg:2:18: common_config.arq_quantize.quant_bits: 5 is not one of 6, 7, 8");
  CHECK(error_of("common_config { arq_quantize { asymmetric: true } }") ==
        "c.cfg:1:32: common_config.arq_quantize.asymmetric: true is valid only with weight_compress_only: true");
  CHECK(error_of("common_config { arq_quantize { asymmetric: true } weight_compress_only: true }").empty());
  CHECK_THAT(error_of("common_config { ifmr_quantize { search_range_start: 1.5 } }"),
             Catch::StartsWith("c.cfg:1:33: common_config.ifmr_quantize.search_range") &&
                 Catch::Contains("0 < start < end"));
  CHECK_THAT(error_of("common_config { ifmr_quantize { search_step: 0 } }"),
             Catch::StartsWith("c.cfg:1:33: common_config.ifmr_quantize.search_step: 0 must be > 0"));
  CHECK_THAT(error_of("\ncommon_config { ifmr_quantize { min_percentile: 0.3 } }"),
             Catch::StartsWith("c.cfg:2:33: common_config.ifmr_quantize.min_percentile: 0.3 is not in (0.5, 1]"));
  CHECK(error_of("batch_num: 0") == "c.cfg:1:1: batch_num: 0 must be >= 1");
  CHECK(error_of("override_layer_types { layer_type: \"Conv\" }\noverride_layer_types { layer_type: \"Conv\" }") ==
        "c.cfg:2:1: override_layer_types[1] (Conv): the layer type appears twice");
  CHECK_THAT(error_of("override_layer_configs { calibration_config { } }"),
             Catch::Contains("override_layer_configs[0] ()") && Catch::Contains("layer_name is missing"));
}

TEST_CASE("Config syntax errors carry protobuf's message with line and column", "[config]") {
  auto [code, message] = test::ErrorOf([] { ParseQuantConfig("batch_num: 1\nbogus_field: 3\n", "cfg.txt"); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::StartsWith("cfg.txt:2:") && Catch::Contains("bogus_field"));
  CHECK_THAT(test::ErrorOf([] {
               ParseQuantConfig("common_config {\n  ifmr_quantize { dst_type: INT4 }\n}", "cfg.txt");
             }).second,
             Catch::StartsWith("cfg.txt:2:") && Catch::Contains("INT4"));
  CHECK_THAT(test::ErrorOf([] { ParseQuantConfig("batch_num: -1", "cfg.txt"); }).second,
             Catch::StartsWith("cfg.txt:1:"));
}

TEST_CASE("Config files: loading and a missing file", "[config]") {
  const std::filesystem::path dir = test::TempDir("quant_config_load");
  const std::filesystem::path path = dir / "simple.cfg";
  std::ofstream(path) << "batch_num: 3\n";
  CHECK(LoadQuantConfig(path.string()).batch_num() == 3);

  const std::string missing = (dir / "nope.cfg").string();
  auto [code, message] = test::ErrorOf([&] { LoadQuantConfig(missing); });
  CHECK(code == ErrorCode::kNotFound);
  CHECK_THAT(message, Catch::Contains(missing));
}

TEST_CASE("Config reports layer names the graph does not have", "[config]") {
  const QuantConfig config = ParseQuantConfig(R"(skip_layers: "a" skip_layers: "ghost1"
override_layer_configs { layer_name: "ghost2" }
override_layer_configs { layer_name: "b" }
skip_fusion_layers: "ghost1" skip_fusion_layers: "ghost3"
)",
                                              "names.cfg");
  const std::set<std::string> graph = {"a", "b"};
  CHECK(config.UnknownLayerNames([&](const std::string& name) { return graph.count(name) > 0; }) ==
        std::vector<std::string>{"ghost1", "ghost2", "ghost3"});
}

TEST_CASE("Config edits round-trip through the text form", "[config]") {
  QuantConfig config = ParseQuantConfig(kPriorityConfig, "cfg.txt");
  LayerQuantConfig conv1 = config.ForLayer("conv1", kConv);
  conv1.ifmr.dst_type = QuantDType::kInt16;
  conv1.ifmr.asymmetric = true;
  config.SetLayerOverride("conv1", conv1);
  LayerQuantConfig fc0 = config.ForLayer("fc0", kGemm);
  fc0.hfmg.dst_type = QuantDType::kInt8;
  config.SetLayerOverride("fc0", fc0);
  fc0.hfmg.num_of_bins = 8192;
  config.SetLayerOverride("fc0", fc0);  // replaces, does not add
  config.AddSkipLayer("conv2");
  config.AddSkipLayer("conv2");

  const QuantConfig reread = ParseQuantConfig(config.ToText(), "rewritten.cfg");
  CHECK(reread.proto().override_layer_configs_size() == 5);
  CHECK(reread.proto().skip_layers_size() == 2);
  const LayerQuantConfig conv1_again = reread.ForLayer("conv1", kConv);
  CHECK(conv1_again.ifmr.dst_type == QuantDType::kInt16);
  CHECK(conv1_again.ifmr.asymmetric);
  CHECK(conv1_again.ifmr.search_range_start == 0.8f);  // carried over from common_config
  CHECK_FALSE(conv1_again.arq.channel_wise);
  const LayerQuantConfig fc0_again = reread.ForLayer("fc0", kGemm);
  CHECK(fc0_again.activation_algo == ActivationAlgo::kHfmg);
  CHECK(fc0_again.hfmg.dst_type == QuantDType::kInt8);
  CHECK(fc0_again.hfmg.num_of_bins == 8192);
  CHECK(reread.ForLayer("conv2", kConv).skip_reason == "skip_layers");
  CHECK(reread.batch_num() == 4);

  LayerQuantConfig minmax = conv1;
  minmax.activation_algo = ActivationAlgo::kMinMax;
  CHECK(test::ErrorCodeOf([&] { config.SetLayerOverride("x", minmax); }) == ErrorCode::kUnsupported);
  LayerQuantConfig bad_bits = conv1;
  bad_bits.arq.quant_bits = 5;
  CHECK_THAT(test::ErrorOf([&] { config.SetLayerOverride("x", bad_bits); }).second,
             Catch::Contains("quant_bits: 5 is not one of 6, 7, 8"));
}

}  // namespace
}  // namespace ge::quant
