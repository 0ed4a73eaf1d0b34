// The `ge` argument parser: accepted spellings, and the errors for misuse.
#include <catch2/catch.hpp>

#include "args.h"

namespace ge::cli {
namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

const CommandSpec kSpec{"run",
                        "MODEL",
                        "Runs a model.",
                        {{"input", "NAME=FILE", true, "an input"},
                         {"loop", "N", false, "timed runs"},
                         {"json", "", false, "JSON output"}}};

ParsedArgs Parse(std::vector<const char*> args) { return ParseArgs(kSpec, args); }

std::string UsageErrorOf(std::vector<const char*> args) {
  try {
    Parse(args);
  } catch (const UsageError& e) {
    return e.what();
  }
  FAIL("no UsageError");
  return "";
}

TEST_CASE("flags take values after a space or '=' and repeatable flags keep their order") {
  const ParsedArgs args = Parse({"m.onnx", "--input", "a=1.npy", "--loop=5", "--input=b=2.npy", "--json"});
  CHECK(args.positional() == std::vector<std::string>{"m.onnx"});
  CHECK(args.Values("input") == std::vector<std::string>{"a=1.npy", "b=2.npy"});
  CHECK(args.IntValue("loop", 10, 1) == 5);
  CHECK(args.Has("json"));
  CHECK_FALSE(args.Has("help"));
  CHECK(Parse({"m.onnx"}).IntValue("loop", 10, 1) == 10);
}

TEST_CASE("--help needs no positional argument") { CHECK(Parse({"--help"}).Has("help")); }

TEST_CASE("misuse is a UsageError that says what is wrong") {
  CHECK_THAT(UsageErrorOf({"m.onnx", "--frobnicate"}), Contains("unknown option '--frobnicate'"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "-x"}), Contains("unknown option '-x'"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--loop"}), Contains("--loop needs a value"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--loop", "1", "--loop", "2"}), Contains("only once"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--json=yes"}), Contains("--json takes no value"));
  CHECK_THAT(UsageErrorOf({}), Contains("exactly one MODEL"));
  CHECK_THAT(UsageErrorOf({"a.onnx", "b.onnx"}), Contains("exactly one MODEL"));
}

TEST_CASE("an unknown flag near a known one is suggested") {
  CHECK_THAT(UsageErrorOf({"m.onnx", "--loops", "3"}),
             Equals("unknown option '--loops' for 'ge run'; did you mean '--loop'?"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--jsno"}), Contains("did you mean '--json'?"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--inptu=a=1.npy"}),
             Contains("unknown option '--inptu' for 'ge run'; did you mean '--input'?"));
  // A long flag spelled with one dash.
  CHECK_THAT(UsageErrorOf({"m.onnx", "-loop", "3"}),
             Contains("unknown option '-loop' for 'ge run'; did you mean '--loop'?"));
  CHECK_THAT(UsageErrorOf({"m.onnx", "--frobnicate"}),
             Equals("unknown option '--frobnicate' for 'ge run' (see 'ge run --help')"));
}

// `ge compile` takes its model as MODEL or, as older scripts write it, --model.
const CommandSpec kCompileSpec{"compile",
                               "MODEL",
                               "Compiles a model.",
                               {{"model", "FILE.onnx", false, "the model, when not given as MODEL"},
                                {"output", "FILE.gem", false, "where to write it", 'o'}},
                               "model"};

TEST_CASE("the positional argument may come from its flag, but not from both") {
  const ParsedArgs positional = ParseArgs(kCompileSpec, std::vector<const char*>{"m.onnx", "-o", "m.gem"});
  CHECK(positional.positional() == std::vector<std::string>{"m.onnx"});
  CHECK(positional.Value("output") == "m.gem");
  const ParsedArgs flag = ParseArgs(kCompileSpec, std::vector<const char*>{"--model", "m.onnx", "--output=m.gem"});
  CHECK(flag.positional() == std::vector<std::string>{"m.onnx"});
  CHECK_FALSE(flag.Has("model"));
  CHECK(flag.Value("output") == "m.gem");

  CHECK_THROWS_WITH(ParseArgs(kCompileSpec, std::vector<const char*>{"a.onnx", "--model", "b.onnx"}),
                    "'ge compile' got both MODEL 'a.onnx' and --model 'b.onnx'; give one of them");
  CHECK_THROWS_WITH(ParseArgs(kCompileSpec, std::vector<const char*>{"-o", "m.gem"}),
                    Contains("expects exactly one MODEL or --model FILE.onnx"));
  CHECK_THROWS_AS(ParseArgs(kCompileSpec, std::vector<const char*>{"a.onnx", "b.onnx"}), UsageError);
  CHECK(ParseArgs(kCompileSpec, std::vector<const char*>{"--help"}).Has("help"));
}

TEST_CASE("integer flags are checked when read") {
  CHECK_THROWS_WITH(Parse({"m.onnx", "--loop", "0"}).IntValue("loop", 10, 1),
                    Contains("--loop expects an integer >= 1, got '0'"));
  CHECK_THROWS_WITH(Parse({"m.onnx", "--loop", "5x"}).IntValue("loop", 10, 1), Contains("got '5x'"));
  CHECK_THROWS_AS(Parse({"m.onnx", "--loop", ""}).IntValue("loop", 10, 1), UsageError);
}

TEST_CASE("KEY=VALUE splits at the first '='") {
  CHECK(SplitKeyValue("ge.a=b=c", "option") == std::pair<std::string, std::string>{"ge.a", "b=c"});
  CHECK(SplitKeyValue("k=", "option") == std::pair<std::string, std::string>{"k", ""});
  CHECK_THROWS_WITH(SplitKeyValue("novalue", "option"), Contains("--option expects KEY=VALUE"));
  CHECK_THROWS_AS(SplitKeyValue("=v", "option"), UsageError);
}

TEST_CASE("help text lists every flag and --help") {
  const std::string help = HelpText(kSpec);
  CHECK_THAT(help, Contains("usage: ge run MODEL [options]"));
  CHECK_THAT(help, Contains("--input NAME=FILE (repeatable)"));
  CHECK_THAT(help, Contains("--loop N"));
  CHECK_THAT(help, Contains("--help"));
  CHECK_THAT(HelpText(kCompileSpec), Contains("-o, --output FILE.gem"));
}

}  // namespace
}  // namespace ge::cli
