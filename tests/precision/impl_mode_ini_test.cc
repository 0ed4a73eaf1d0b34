// The ini formats of implementation-mode selection: both layouts, comments,
// and errors that name the file and the line.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "passes/impl_mode_ini.h"

using ge::passes::ImplModeFile;
using ge::passes::ParseImplModeFile;
using ge::passes::ParseOpImplModes;

namespace {

// The message of the ge::Error `parse` throws, after checking its code.
template <typename Parse>
std::string ErrorOf(Parse parse, ge::ErrorCode code = ge::ErrorCode::kInvalidArgument) {
  try {
    parse();
  } catch (const ge::Error& error) {
    CHECK(error.code() == code);
    return error.what();
  }
  FAIL("no error");
  return "";
}

}  // namespace

TEST_CASE("impl-mode ini: sectionless OpType=mode lines are ByOpType", "[precision]") {
  ImplModeFile file = ParseImplModeFile(
      "# a comment\n"
      "\n"
      "  Exp = high_performance   # trailing comment\n"
      "Gelu=high_precision\r\n",
      "model.ini");
  REQUIRE(file.by_op_type.size() == 2);
  CHECK(file.by_op_type.at("Exp").mode == "high_performance");
  CHECK(file.by_op_type.at("Exp").line == 3);
  CHECK(file.by_op_type.at("Exp").file == "model.ini");
  CHECK(file.by_op_type.at("Gelu").mode == "high_precision");
  CHECK(file.by_op_type.at("Gelu").line == 4);
  CHECK(file.by_node_name.empty());
}

TEST_CASE("impl-mode ini: ByOpType and ByNodeName sections", "[precision]") {
  ImplModeFile file = ParseImplModeFile(
      "Tanh=high_precision\n"
      "[ByOpType]\n"
      "Exp=high_precision\n"
      "[ByNodeName]\n"
      "encoder/exp_1=high_performance\n"
      "Exp=keep_fp16\n",
      "m.ini");
  CHECK(file.by_op_type.size() == 2);
  CHECK(file.by_op_type.at("Tanh").line == 1);
  CHECK(file.by_op_type.at("Exp").mode == "high_precision");
  REQUIRE(file.by_node_name.size() == 2);
  CHECK(file.by_node_name.at("encoder/exp_1").mode == "high_performance");
  CHECK(file.by_node_name.at("encoder/exp_1").line == 5);
  CHECK(file.by_node_name.at("Exp").mode == "keep_fp16");  // a node may be named like an op type
}

TEST_CASE("impl-mode ini: malformed lines name the file and the line", "[precision]") {
  auto error = [](const char* text) { return ErrorOf([&] { ParseImplModeFile(text, "bad.ini"); }); };
  CHECK_THAT(error("Exp=high_precision\nGelu high_precision\n"),
             Catch::StartsWith("bad.ini:2:") && Catch::Contains("key=value"));
  CHECK_THAT(error("\n\n=high_precision\n"), Catch::StartsWith("bad.ini:3:") && Catch::Contains("no key"));
  CHECK_THAT(error("Exp=\n"), Catch::StartsWith("bad.ini:1:") && Catch::Contains("no value"));
  CHECK_THAT(error("[ByOpType\n"), Catch::StartsWith("bad.ini:1:") && Catch::Contains("section header"));
  CHECK_THAT(error("[ByOp]\nExp=high_precision\n"),
             Catch::StartsWith("bad.ini:2:") && Catch::Contains("[ByOp]") && Catch::Contains("[ByNodeName]"));
  CHECK_THAT(error("Exp=fast\n"), Catch::StartsWith("bad.ini:1:") && Catch::Contains("'fast'") &&
                                      Catch::Contains("enable_hi_float_32_execution"));
  CHECK_THAT(error("Exp=high_precision\n# x\nExp=high_performance\n"),
             Catch::StartsWith("bad.ini:3:") && Catch::Contains("line 1"));
  CHECK_THAT(error("Exp=high_precision,high_performance\n"),
             Catch::StartsWith("bad.ini:1:") && Catch::Contains("one mode"));
}

TEST_CASE("impl-mode ini: all_ops_impl_mode format lists modes, default first", "[precision]") {
  auto modes = ParseOpImplModes("# c\nExp=high_precision, high_performance\nMatMulV2=enable_float_32_execution,"
                                "enable_hi_float_32_execution\n",
                                "all.ini");
  CHECK(modes.at("Exp") == std::vector<std::string>{"high_precision", "high_performance"});
  CHECK(modes.at("MatMulV2").front() == "enable_float_32_execution");
  auto error = [](const char* text) { return ErrorOf([&] { ParseOpImplModes(text, "all.ini"); }); };
  CHECK_THAT(error("Exp=high_precision,,high_performance\n"), Catch::StartsWith("all.ini:1:"));
  CHECK_THAT(error("Exp=high_precision,high_precision\n"), Catch::StartsWith("all.ini:1:") && Catch::Contains("twice"));
  CHECK_THAT(error("Exp=high_precision\nExp=high_performance\n"), Catch::StartsWith("all.ini:2:"));
  CHECK_THAT(error("[ByOpType]\nExp=high_precision\n"), Catch::StartsWith("all.ini:2:"));
  CHECK_THAT(error("Exp=turbo\n"), Catch::Contains("'turbo'"));
}

TEST_CASE("impl-mode ini: a missing file is kNotFound naming the path", "[precision]") {
  std::string message = ErrorOf([] { ge::passes::LoadImplModeFile("/no/such/dir/model.ini"); },
                                ge::ErrorCode::kNotFound);
  CHECK_THAT(message, Catch::Contains("/no/such/dir/model.ini"));
}

TEST_CASE("impl-mode ini: a mode the op does not offer names file, line, op and the allowed modes", "[precision]") {
  ge::passes::ImplModeEntry entry{"super_performance", "model.ini", 7};
  const auto& all = ge::passes::AllOpsImplModes();
  if (!all.empty()) {
    const auto& [op_type, modes] = *all.begin();
    std::string message = ErrorOf([&] { ge::passes::CheckModeAllowed(entry, op_type, op_type); });
    if (std::find(modes.begin(), modes.end(), entry.mode) == modes.end()) {
      CHECK_THAT(message, Catch::StartsWith("model.ini:7:") && Catch::Contains(op_type) &&
                              Catch::Contains(modes.front()) && Catch::Contains("super_performance"));
    }
  }
  // Relu computes exactly in every dtype: a single implementation, so no mode may be set.
  REQUIRE(all.count("Relu") == 0);
  std::string message = ErrorOf([&] { ge::passes::CheckModeAllowed(entry, "Relu", "Relu"); });
  CHECK_THAT(message, Catch::StartsWith("model.ini:7:") && Catch::Contains("Relu") &&
                          Catch::Contains("single implementation") && Catch::Contains("all_ops_impl_mode.ini"));
}
