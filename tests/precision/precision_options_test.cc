// The precision options as ge.* keys: accepted values and every error path.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/error.h"
#include "passes/precision_lists.h"
#include "runtime/options.h"
#include "test_support.h"

using ge::ErrorCode;
using ge::runtime::ParseOptions;

namespace {

// The error ParseOptions throws, or kOk with an empty message.
std::pair<ErrorCode, std::string> ParseError(const ge::Options& options) {
  return ge::test::ErrorOf([&] { ParseOptions(options); });
}

std::unique_ptr<ge::Graph> ExpGraph() {
  ge::GraphBuilder b("exp");
  b.Output(b.Tanh(b.Input("x", ge::DataType::kFloat, {4}), "t"));
  return b.Build();
}

std::pair<ErrorCode, std::string> CompileError(const ge::Options& options) {
  try {
    ge::CompiledModel::Compile(ExpGraph(), options);
  } catch (const ge::Error& error) {
    return {error.code(), error.what()};
  }
  return {ErrorCode::kOk, ""};
}

template <typename Parse>
std::string ErrorOf(Parse parse) {
  try {
    parse();
  } catch (const ge::Error& error) {
    CHECK(error.code() == ErrorCode::kInvalidArgument);
    return error.what();
  }
  FAIL("no error");
  return "";
}

}  // namespace

TEST_CASE("precision options: op_select_implmode values", "[precision]") {
  CHECK_FALSE(ParseOptions({}).impl_mode_given);
  for (const char* mode :
       {"high_precision", "high_performance", "high_precision_for_all", "high_performance_for_all"}) {
    ge::runtime::RuntimeOptions parsed = ParseOptions({{"ge.opSelectImplmode", mode}});
    CHECK(parsed.impl_mode == mode);
    CHECK(parsed.impl_mode_given);
  }
  auto [code, message] = ParseError({{"ge.opSelectImplmode", "high_speed"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.opSelectImplmode") && Catch::Contains("'high_speed'") &&
                          Catch::Contains("high_performance_for_all"));
}

TEST_CASE("precision options: optypelist_for_implmode only with high_precision or high_performance", "[precision]") {
  ge::runtime::RuntimeOptions parsed =
      ParseOptions({{"ge.opSelectImplmode", "high_precision"}, {"ge.optypelistForImplmode", "SoftmaxV2, Gelu,"}});
  CHECK(parsed.optypelist_for_implmode == std::vector<std::string>{"SoftmaxV2", "Gelu"});
  CHECK(ParseError({{"ge.optypelistForImplmode", "Gelu"}}).first == ErrorCode::kOk);  // default high_performance
  auto [code, message] =
      ParseError({{"ge.opSelectImplmode", "high_precision_for_all"}, {"ge.optypelistForImplmode", "Gelu"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.optypelistForImplmode") && Catch::Contains("high_precision_for_all"));
  CHECK(ParseError({{"ge.optypelistForImplmode", " , "}}).first == ErrorCode::kInvalidArgument);
  auto [compile_code, compile_message] = CompileError({{"ge.optypelistForImplmode", "Gelu,NoSuchOp"}});
  CHECK(compile_code == ErrorCode::kInvalidArgument);
  CHECK_THAT(compile_message, Catch::Contains("'NoSuchOp'"));
}

TEST_CASE("precision options: precision_mode and precision_mode_v2 are mutually exclusive", "[precision]") {
  CHECK(ParseOptions({{"ge.exec.precision_mode_v2", "origin"}}).precision_mode_v2 == "origin");
  auto [code, message] =
      ParseError({{"ge.exec.precision_mode", "force_fp32"}, {"ge.exec.precision_mode_v2", "origin"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.exec.precision_mode") && Catch::Contains("ge.exec.precision_mode_v2") &&
                          Catch::Contains("together"));
  // Said before either value is judged.
  CHECK(ParseError({{"ge.exec.precision_mode", "bogus"}, {"ge.exec.precision_mode_v2", "bogus"}}).second == message);

  auto [v2_code, v2_message] = ParseError({{"ge.exec.precision_mode_v2", "fp64"}});
  CHECK(v2_code == ErrorCode::kInvalidArgument);
  CHECK_THAT(v2_message, Catch::Contains("origin") && Catch::Contains("mixed_bfloat16"));
  CHECK(ParseOptions({{"ge.exec.precision_mode_v2", "mixed_float16"}}).precision_mode_v2 == "mixed_float16");
}

TEST_CASE("precision options: op_precision_mode, keep_dtype and modify_mixlist name files", "[precision]") {
  for (const char* key : {"ge.exec.op_precision_mode", "ge.keepDtype", "ge.exec.modify_mixlist"}) {
    auto [code, message] = ParseError({{key, ""}});
    CHECK(code == ErrorCode::kInvalidArgument);
    CHECK_THAT(message, Catch::Contains(key) && Catch::Contains("path"));
  }
  auto [code, message] = ParseError({{"ge.exec.modify_mixlist", "mix.json"}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("allow_mix_precision") && Catch::Contains("mixed_float16"));
  CHECK(ParseError({{"ge.exec.modify_mixlist", "mix.json"}, {"ge.exec.precision_mode", "force_fp32"}}).first ==
        ErrorCode::kInvalidArgument);

  auto [missing_code, missing_message] = CompileError({{"ge.exec.op_precision_mode", "/no/such/op_precision.ini"}});
  CHECK(missing_code == ErrorCode::kNotFound);
  CHECK_THAT(missing_message,
             Catch::Contains("ge.exec.op_precision_mode") && Catch::Contains("/no/such/op_precision.ini"));
  auto [keep_code, keep_message] = CompileError({{"ge.keepDtype", "/no/such/keep.cfg"}});
  CHECK(keep_code == ErrorCode::kNotFound);
  CHECK_THAT(keep_message, Catch::Contains("ge.keepDtype") && Catch::Contains("/no/such/keep.cfg"));
}

TEST_CASE("precision options: keep_dtype lists node names and OpType:: entries", "[precision]") {
  ge::passes::KeepDtypeList list =
      ge::passes::ParseKeepDtype("# keep these\nfp32_vars/Relu\n\n  OpType::SoftmaxV2 \nOpType::Gelu\n", "keep.cfg");
  CHECK(list.node_names == std::set<std::string>{"fp32_vars/Relu"});
  CHECK(list.op_types == std::set<std::string>{"SoftmaxV2", "Gelu"});
  CHECK_THAT(ErrorOf([] { ge::passes::ParseKeepDtype("a\nOpType::\n", "keep.cfg"); }),
             Catch::StartsWith("keep.cfg:2:"));
  CHECK_THAT(ErrorOf([] { ge::passes::ParseKeepDtype("a\n\nOpType::Softmax\n", "keep.cfg"); }),
             Catch::StartsWith("keep.cfg:3:") && Catch::Contains("'Softmax'"));

  std::filesystem::path dir = ge::test::TempDir("keep_dtype_compile");
  std::ofstream(dir / "keep.cfg") << "t\nOpType::Tanh\n";
  CHECK(CompileError({{"ge.keepDtype", (dir / "keep.cfg").string()}}).first == ErrorCode::kOk);
  std::ofstream(dir / "bad.cfg") << "OpType::Nope\n";
  auto [code, message] = CompileError({{"ge.keepDtype", (dir / "bad.cfg").string()}});
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ge.keepDtype") && Catch::Contains("bad.cfg:1:"));
}

TEST_CASE("precision options: modify_mixlist JSON edits of the block and trust lists", "[precision]") {
  ge::passes::MixlistEdits edits = ge::passes::ParseMixlist(
      R"({"black-list": {"to-remove": ["SoftmaxV2"], "to-add": ["Gelu", "Tanh"]},
          "white-list": {"to-add": ["MatMulV2"]}})",
      "mix.json");
  CHECK(edits.black_remove == std::set<std::string>{"SoftmaxV2"});
  CHECK(edits.black_add == std::set<std::string>{"Gelu", "Tanh"});
  CHECK(edits.white_add == std::set<std::string>{"MatMulV2"});
  CHECK(edits.white_remove.empty());
  auto error = [](const char* text) { return ErrorOf([&] { ge::passes::ParseMixlist(text, "mix.json"); }); };
  CHECK_THAT(error("{\n\"gray-list\": {}\n}"), Catch::StartsWith("mix.json:2:") && Catch::Contains("black-list"));
  CHECK_THAT(error("{\"black-list\": {\n\"to-add\": [\"Nope\"]}}"),
             Catch::StartsWith("mix.json:2:") && Catch::Contains("'Nope'"));
  CHECK_THAT(error("{\"white-list\": {\"to-add\": [\"Gelu\"], \"to-remove\": [\"Gelu\"]}}"),
             Catch::Contains("both adds and removes Gelu"));
  CHECK_THAT(error("{\"white-list\": {\"to-move\": []}}"), Catch::Contains("to-move"));
  CHECK_THAT(error("{\"white-list\": {\"to-add\": [1]}}"), Catch::StartsWith("mix.json:1:"));
  CHECK_THAT(error("{\"white-list\": \n\n{\"to-add\": [\"Gelu\"]"), Catch::StartsWith("mix.json:3:"));
  CHECK_THAT(error("[] []"), Catch::Contains("after the JSON"));
}
