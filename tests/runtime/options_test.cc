// ge.* option parsing: values, and errors that name the option and the choices.
#include <catch2/catch.hpp>

#include <filesystem>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "runtime/options.h"
#include "test_models.h"
#include "test_support.h"

using ge::ErrorCode;
using ge::runtime::ParseOptions;

namespace {

// The error ParseOptions throws, or kOk with an empty message.
std::pair<ErrorCode, std::string> ParseError(const ge::Options& options) {
  return ge::test::ErrorOf([&] { ParseOptions(options); });
}

}  // namespace

TEST_CASE("options: defaults and valid values", "[options]") {
  ge::runtime::RuntimeOptions defaults = ParseOptions({});
  CHECK_FALSE(defaults.disable_reuse_memory);
  CHECK_FALSE(defaults.release_packed_constants);
  CHECK(defaults.disabled_passes.empty());
  CHECK(defaults.intra_op_threads == 0);
  CHECK(defaults.precision_mode == "must_keep_origin_dtype");
  CHECK(defaults.impl_mode == "high_performance");
  CHECK(defaults.max_loop_iterations == 0);

  ge::runtime::RuntimeOptions parsed = ParseOptions({
      {"ge.exec.disableReuseMemory", "1"},
      {"ge.exec.releasePackedConstants", "1"},
      {"ge.disablePasses", "constant_folding, dead_code_elimination"},
      {"ge.dumpGraphDir", "/tmp/dump"},
      {"ge.exec.intraOpThreads", "3"},
      {"ge.graphRunMode", "0"},
      {"ge.exec.precision_mode", "force_fp32"},
      {"ge.opSelectImplmode", "high_performance"},
      {"ge.exec.maxLoopIterations", "1000"},
  });
  CHECK(parsed.disable_reuse_memory);
  CHECK(parsed.release_packed_constants);
  CHECK(parsed.disabled_passes == std::set<std::string>{"constant_folding", "dead_code_elimination"});
  CHECK(parsed.dump_graph_dir == "/tmp/dump");
  CHECK(parsed.intra_op_threads == 3);
  CHECK(parsed.precision_mode == "force_fp32");
  CHECK(parsed.max_loop_iterations == 1000);
}

TEST_CASE("options: unknown keys and bad values are invalid arguments", "[options]") {
  auto [code, message] = ParseError({{"ge.exec.disableReuseMemroy", "1"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.exec.disableReuseMemroy") && Catch::Contains("ge.exec.disableReuseMemory"));

  for (const char* key : {"ge.exec.disableReuseMemory", "ge.exec.releasePackedConstants"}) {
    for (const char* bad : {"2", "yes", ""}) {
      auto [bad_code, bad_message] = ParseError({{key, bad}});
      CHECK(bad_code == ErrorCode::kInvalidArgument);
      CHECK_THAT(bad_message, Catch::Contains(key) && Catch::Contains("0 or 1"));
    }
  }
  for (const char* bad : {"-1", "four", "4x", "", "1025", "65536"}) {
    CHECK(ParseError({{"ge.exec.intraOpThreads", bad}}).first == ErrorCode::kInvalidArgument);
  }
  CHECK_THAT(ParseError({{"ge.exec.intraOpThreads", "65536"}}).second, Catch::Contains("from 0 to 1024"));
  for (const char* bad : {"0", "1025"}) {
    CHECK_THAT(ParseError({{"ge.exec.asyncWorkers", bad}}).second, Catch::Contains("from 1 to 1024"));
  }
  CHECK(ParseError({{"ge.graphRunMode", "2"}}).first == ErrorCode::kInvalidArgument);
  for (const char* bad : {"-1", "many", ""}) {
    CHECK_THAT(ParseError({{"ge.exec.maxLoopIterations", bad}}).second, Catch::Contains("a non-negative integer"));
  }

  auto [mode_code, mode_message] = ParseError({{"ge.exec.precision_mode", "fp64_everywhere"}});
  CHECK(mode_code == ErrorCode::kInvalidArgument);
  CHECK_THAT(mode_message, Catch::Contains("must_keep_origin_dtype") && Catch::Contains("force_fp16"));
}

TEST_CASE("options: valid GE values ge does not implement yet are unsupported", "[options]") {
  CHECK(ParseError({{"ge.graphRunMode", "1"}}).first == ErrorCode::kUnsupported);
}

TEST_CASE("options: session options are overridden by graph options", "[options]") {
  ge::Options merged = ge::runtime::MergeOptions({{"ge.exec.disableReuseMemory", "1"}, {"ge.graphRunMode", "0"}},
                                                 {{"ge.exec.disableReuseMemory", "0"}});
  CHECK(merged == ge::Options{{"ge.exec.disableReuseMemory", "0"}, {"ge.graphRunMode", "0"}});
}

TEST_CASE("options: compile rejects unknown pass names, listing the valid ones", "[options]") {
  try {
    ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.disablePasses", "constant_folding,no_such_pass"}});
    FAIL("compiled with an unknown pass name");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    CHECK_THAT(error.what(), Catch::Contains("no_such_pass") && Catch::Contains("ge.disablePasses") &&
                                 Catch::Contains("dead_code_elimination"));
  }
}

TEST_CASE("options: ge.dumpGraphDir writes the graph after every pass", "[options]") {
  std::filesystem::path dir = ge::test::TempDir("runtime-dump");
  auto model = ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.dumpGraphDir", dir.string()}});
  size_t dumps = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    dumps += entry.path().extension() == ".txt";
  }
  CHECK(dumps == model->pass_timings().size());
  CHECK(dumps > 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("options: ge.exec.device names the device, and a build without the Ascend backend says so",
          "[options]") {
  CHECK(ParseOptions({}).device == "cpu");
  ge::runtime::RuntimeOptions ascend = ParseOptions({{"ge.exec.device", "ascend"}, {"ge.exec.deviceId", "1"}});
  CHECK(ascend.device == "ascend");
  CHECK(ascend.device_id == 1);

  auto [code, message] = ParseError({{"ge.exec.device", "gpu"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.exec.device") && Catch::Contains("cpu, ascend"));
  std::tie(code, message) = ParseError({{"ge.exec.deviceId", "-1"}});
  CHECK(code == ErrorCode::kInvalidArgument);

  auto compiled = ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.device", "cpu"}});
  CHECK(compiled->device_name() == "cpu");
#ifndef GE_WITH_ACL
  std::tie(code, message) = ge::test::ErrorOf(
      [] { ge::CompiledModel::Compile(ge::test::MlpModel().Build(), {{"ge.exec.device", "ascend"}}); });
  CHECK(code == ErrorCode::kUnsupported);
  CHECK_THAT(message, Catch::Contains("GE_WITH_ACL") && Catch::Contains("valid here: cpu"));
#endif
}
