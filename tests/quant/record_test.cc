// The record file: exact round trip, hand-written AMCT-style text, validation
// errors with line numbers, and the all-or-nothing write.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

#include "quant/quant_record.h"
#include "test_support.h"

namespace ge::quant {
namespace {

QuantRecord SampleRecord() {
  QuantRecord record;
  LayerRecord conv;
  conv.activation = ActivationQuantParams{0.1f, -3, QuantDType::kInt8};
  conv.weights = WeightQuantParams{{1.0f / 3.0f, 1e-7f, 12345.678f}, {0, 0, 0}, 8};
  record["conv1"] = conv;
  LayerRecord bmm;
  bmm.activation = ActivationQuantParams{0.25f, 0, QuantDType::kInt8};
  bmm.second_activation = ActivationQuantParams{0.0078125f, 0, QuantDType::kInt8};
  bmm.skip_fusion = true;
  record["bmm/x1x2"] = bmm;
  LayerRecord wide;
  wide.activation = ActivationQuantParams{3.0f / 32767.0f, 200, QuantDType::kInt16};
  wide.weights = WeightQuantParams{{0.5f}, {0}, 7};
  record["fc16"] = wide;
  LayerRecord weight_only;
  weight_only.weights = WeightQuantParams{{0.01f, 0.02f}, {-5, 17}, 8};
  record["matmul_w"] = weight_only;
  return record;
}

void CheckSame(const QuantRecord& a, const QuantRecord& b) {
  REQUIRE(a.size() == b.size());
  for (const auto& [name, layer] : a) {
    INFO("layer " << name);
    REQUIRE(b.count(name) == 1);
    const LayerRecord& other = b.at(name);
    const auto same_activation = [](const std::optional<ActivationQuantParams>& x,
                                     const std::optional<ActivationQuantParams>& y) {
      REQUIRE(x.has_value() == y.has_value());
      if (!x) return;
      CHECK(x->scale == y->scale);
      CHECK(x->offset == y->offset);
      CHECK(x->dst_type == y->dst_type);
    };
    same_activation(layer.activation, other.activation);
    same_activation(layer.second_activation, other.second_activation);
    REQUIRE(layer.weights.has_value() == other.weights.has_value());
    if (layer.weights) {
      CHECK(layer.weights->scale == other.weights->scale);
      CHECK(layer.weights->offset == other.weights->offset);
      CHECK(layer.weights->quant_bits == other.weights->quant_bits);
    }
    CHECK(layer.skip_fusion == other.skip_fusion);
  }
}

TEST_CASE("Record round trip keeps every value bit for bit", "[record]") {
  const QuantRecord record = SampleRecord();
  const std::filesystem::path path = test::TempDir("quant_record_roundtrip") / "record.txt";
  WriteQuantRecord(record, path.string());
  CheckSame(record, ReadQuantRecord(path.string()));
  CheckSame(record, ParseQuantRecord(QuantRecordToText(record), "text"));
}

TEST_CASE("Record reads hand-written AMCT-style text", "[record]") {
  const QuantRecord record = ParseQuantRecord(R"(record {
  key: "conv1"
  value {
    scale_d: 0.5
    offset_d: -128
    scale_w: 0.25
    scale_w: 0.125
    offset_w: 0
    offset_w: 0
    act_type: "INT8"
    wts_type: "INT6"
  }
}
record {
  key: "pool1"
  value { scale_d: 2 offset_d: 5 dst_type: "INT16" skip_fusion: true }
}
)",
                                              "amct.record");
  REQUIRE(record.size() == 2);
  const LayerRecord& conv = record.at("conv1");
  REQUIRE(conv.activation);
  CHECK(conv.activation->scale == 0.5f);
  CHECK(conv.activation->offset == -128);
  CHECK(conv.activation->dst_type == QuantDType::kInt8);
  REQUIRE(conv.weights);
  CHECK(conv.weights->scale == std::vector<float>{0.25f, 0.125f});
  CHECK(conv.weights->offset == std::vector<int32_t>{0, 0});
  CHECK(conv.weights->quant_bits == 6);
  CHECK_FALSE(conv.second_activation);
  const LayerRecord& pool = record.at("pool1");
  CHECK(pool.activation->dst_type == QuantDType::kInt16);
  CHECK_FALSE(pool.weights);
  CHECK(pool.skip_fusion);
}

TEST_CASE("Record validation errors point at the field", "[record]") {
  const auto error_of = [](const std::string& text) {
    return test::ErrorOf([&] { ParseQuantRecord(text, "r.txt"); }).second;
  };
  CHECK(error_of("record {\n  key: \"c\"\n  value {\n    scale_d: 0\n  }\n}") ==
        "r.txt:4:5: record[0] (c).scale_d: scale_d = 0 must be positive and finite, and at least 2.938736e-39 so "
        "that 1 / scale is finite");
  CHECK(error_of("record { key: \"c\" value { scale_d: 1 offset_d: 128 } }") ==
        "r.txt:1:38: record[0] (c).offset_d: 128 is outside the INT8 range [-128, 127]");
  CHECK(error_of("record { key: \"c\" value { scale_d: 1 offset_d: 128 act_type: \"INT16\" } }").empty());
  CHECK_THAT(error_of("record { key: \"c\" value { scale_w: 1 scale_w: 2 offset_w: 0 } }"),
             Catch::Contains("record[0] (c).offset_w: 1 values for 2 scale_w values"));
  CHECK_THAT(error_of("record { key: \"c\" value { scale_w: 1 scale_w: -2 offset_w: 0 offset_w: 0 } }"),
             Catch::StartsWith("r.txt:1:38:") && Catch::Contains("scale_w[1] = -2 must be positive"));
  CHECK_THAT(error_of("record { key: \"c\" value { scale_w: 1 offset_w: 70 wts_type: \"INT7\" } }"),
             Catch::Contains("offset_w[0] = 70 is outside the INT7 range [-64, 63]"));
  CHECK_THAT(error_of("record { key: \"c\" value { scale_d: 1 dst_type: \"INT4\" } }"),
             Catch::Contains("dst_type: \"INT4\" is not one of \"INT8\", \"INT16\""));
  CHECK_THAT(error_of("record { key: \"c\" value { scale_d: inf } }"), Catch::Contains("must be positive and finite"));
  CHECK_THAT(error_of("record { key: \"c\" value { offset_d: 1 } }"), Catch::Contains("without scale_d"));
  CHECK_THAT(error_of("record { key: \"c\" }\nrecord { key: \"c\" }"),
             Catch::StartsWith("r.txt:2:1: record[1] (c): the layer appears twice"));
  CHECK_THAT(error_of("record { key: \"c\"\n  value { scale: 1 } }"),
             Catch::StartsWith("r.txt:2:") && Catch::Contains("scale"));
}

TEST_CASE("Record missing file is kNotFound", "[record]") {
  const std::string missing = (test::TempDir("quant_record_missing") / "none.txt").string();
  auto [code, message] = test::ErrorOf([&] { ReadQuantRecord(missing); });
  CHECK(code == ErrorCode::kNotFound);
  CHECK_THAT(message, Catch::Contains(missing));
}

std::vector<std::string> DirectoryEntries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST_CASE("Record write replaces the file whole and leaves nothing else behind", "[record]") {
  const std::filesystem::path dir = test::TempDir("quant_record_atomic");
  const std::filesystem::path path = dir / "record.txt";
  std::ofstream(path) << "stale content that is not a record";
  const QuantRecord record = SampleRecord();
  WriteQuantRecord(record, path.string());
  CheckSame(record, ReadQuantRecord(path.string()));
  CHECK(DirectoryEntries(dir) == std::vector<std::string>{"record.txt"});

  // A target that cannot be replaced (a non-empty directory): the write fails,
  // the target is untouched and the temporary file is gone.
  const std::filesystem::path blocked = dir / "blocked";
  std::filesystem::create_directory(blocked);
  std::ofstream(blocked / "keep") << "x";
  auto [code, message] = test::ErrorOf([&] { WriteQuantRecord(record, blocked.string()); });
  CHECK(code == ErrorCode::kIoError);
  CHECK_THAT(message, Catch::Contains(blocked.string()));
  CHECK(std::filesystem::is_directory(blocked));
  CHECK(DirectoryEntries(dir) == std::vector<std::string>{"blocked", "record.txt"});

  // A directory that does not exist: nothing is created.
  CHECK(test::ErrorCodeOf([&] { WriteQuantRecord(record, (dir / "no" / "r.txt").string()); }) ==
        ErrorCode::kIoError);
  CHECK_FALSE(std::filesystem::exists(dir / "no"));
}

}  // namespace
}  // namespace ge::quant
