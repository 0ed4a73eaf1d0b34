// Numeric values of the quant config and record checked against their valid
// ranges before any calibration runs, and the files read only when they are
// regular files: errors name file:line:column, the value and the range.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ge/error.h"
#include "ge/quantize.h"
#include "quant/ifmr.h"
#include "quant/quant_config.h"
#include "quant/quant_record.h"
#include "test_support.h"

namespace ge::quant {
namespace {

std::string ConfigError(const std::string& text) {
  const auto [code, message] = test::ErrorOf([&] { ParseQuantConfig(text, "c.cfg"); });
  CHECK(code == ErrorCode::kInvalidArgument);
  return message;
}

TEST_CASE("Config ranges: a search step that makes more than 10000 clip ratios is refused", "[config]") {
  CHECK(ConfigError("common_config {\n  ifmr_quantize { search_step: 0.0000001 }\n}\n") ==
        "c.cfg:2:19: common_config.ifmr_quantize.search_step: 1e-07 makes 6000000 clip ratios from 0.7 to 1.3; at "
        "most 10000 are searched, so the step must be at least 6.0005998e-05");
  CHECK(ConfigError("common_config { ifmr_quantize { search_step: 1e-45 } }").find("search_step: 1e-45 makes") !=
        std::string::npos);
  CHECK(IfmrCandidateCount({}) == 61);  // AMCT's default: 0.7 to 1.3 by 0.01
  ParseQuantConfig("common_config { ifmr_quantize { search_range_end: 1.7 search_step: 0.001 } }", "ok.cfg");
  CHECK_THAT(ConfigError("common_config { ifmr_quantize { search_range_end: 1.7 search_step: 0.0001 } }"),
             Catch::Contains("0.0001 makes 10001 clip ratios from 0.7 to 1.7"));
  // The algorithm itself refuses the same, for params that never went through a config.
  CHECK(test::ErrorCodeOf([] {
          const float data[] = {1.0f, -1.0f};
          IfmrCalibrate(data, IfmrParams{.search_step = 1e-7f});
        }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("Config ranges: search range bounds must be finite, NaN is never in range", "[config]") {
  CHECK_THAT(ConfigError("common_config { ifmr_quantize { search_range_end: inf } }"),
             Catch::StartsWith("c.cfg:1:33: common_config.ifmr_quantize.search_range: start 0.7 and end inf must "
                               "satisfy 0 < start < end (finite)"));
  CHECK_THAT(ConfigError("common_config { ifmr_quantize { search_step: nan } }"),
             Catch::StartsWith("c.cfg:1:33: common_config.ifmr_quantize.search_step: nan must be > 0"));
  CHECK_THAT(ConfigError("common_config { ifmr_quantize { max_percentile: nan } }"),
             Catch::Contains("max_percentile: nan is not in (0.5, 1]"));
}

TEST_CASE("Config ranges: names from the file are escaped in errors", "[config]") {
  CHECK(ConfigError("override_layer_types { layer_type: \"C\\r\\x1b\" }\n"
                    "override_layer_types { layer_type: \"C\\r\\x1b\" }") ==
        "c.cfg:2:1: override_layer_types[1] (C\\r\\x1B): the layer type appears twice");
  CHECK_THAT(ConfigError("batch_num: 1\nbogus\x1b: 1\n"), Catch::StartsWith("c.cfg:2:") && !Catch::Contains("\x1b"));
}

TEST_CASE("Record ranges: a scale whose inverse overflows is refused, names are escaped", "[record]") {
  const auto [code, message] =
      test::ErrorOf([] { ParseQuantRecord("record { key: \"c\\n1\" value { scale_d: 1e-40 } }", "r.txt"); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK(message ==
        "r.txt:1:30: record[0] (c\\n1).scale_d: scale_d = 1e-40 must be positive and finite, and at least "
        "2.938736e-39 so that 1 / scale is finite");
  CHECK_THAT(test::ErrorOf([] {
               ParseQuantRecord("record { key: \"c\" value { scale_w: 1 scale_w: 1e-39 offset_w: 0 offset_w: 0 } }",
                                "r.txt");
             }).second,
             Catch::Contains("scale_w[1] = 1e-39 must be positive and finite"));
}

TEST_CASE("Quant files: config, record and calibration data refuse a FIFO, a device or a directory by name",
          "[config]") {
  const auto dir = test::TempDir("quant_special_files");
  const std::string fifo = (dir / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK(test::ErrorOf([&] { LoadQuantConfig(fifo); }) ==
        std::pair{ErrorCode::kIoError,
                  fifo + ": cannot read quant config file: it is a FIFO (named pipe), not a regular file"});
  CHECK(test::ErrorOf([&] { ReadQuantRecord("/dev/zero"); }) ==
        std::pair{ErrorCode::kIoError,
                  std::string("/dev/zero: cannot read quant record file: it is a character device, not a regular "
                              "file")});
  CHECK_THAT(test::ErrorOf([&] { LoadQuantConfig(dir.string()); }).second,
             Catch::EndsWith("cannot read quant config file: it is a directory, not a regular file"));

  const std::vector<TensorInfo> inputs = {{"x", DataType::kFloat, Shape({1, 2})}};
  CHECK(test::ErrorOf([&] { LoadCalibrationData(fifo, inputs); }) ==
        std::pair{ErrorCode::kIoError,
                  fifo + ": cannot read calibration list: it is a FIFO (named pipe), not a regular file"});
  std::ofstream(dir / "list.txt") << "fifo\n";
  CHECK(test::ErrorOf([&] { LoadCalibrationData((dir / "list.txt").string(), inputs); }) ==
        std::pair{ErrorCode::kIoError, fifo + ": cannot read .npy file: it is a FIFO (named pipe), not a regular file"});
  // In a folder, anything but a regular file is left out rather than read.
  std::filesystem::create_directory(dir / "folder");
  REQUIRE(::mkfifo((dir / "folder" / "x.npy").c_str(), 0600) == 0);
  CHECK_THAT(test::ErrorOf([&] { LoadCalibrationData((dir / "folder").string(), inputs); }).second,
             Catch::EndsWith("folder: no .npy files in the folder"));
}

}  // namespace
}  // namespace ge::quant
