// ge::ClosestName, the "did you mean" of the tool's flags and commands and of
// the runtime's option keys: which typos it catches, and that it stays silent
// rather than suggest something unrelated.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "graph/closest_name.h"

namespace ge {
namespace {

const std::vector<std::string> kFlags = {"input", "output-dir", "loop", "warmup", "profile", "threads", "option",
                                         "json"};

std::string Closest(const std::string& given, const std::vector<std::string>& candidates = kFlags) {
  return ClosestName(given, candidates).value_or("<none>");
}

TEST_CASE("one or two typos in a short name find it") {
  CHECK(Closest("loops") == "loop");      // an extra letter
  CHECK(Closest("lop") == "loop");        // a missing one
  CHECK(Closest("lopo") == "loop");       // two letters swapped count as one typo
  CHECK(Closest("inptu") == "input");
  CHECK(Closest("thread") == "threads");
  CHECK(Closest("output_dir") == "output-dir");
  CHECK(Closest("JSON") == "json");  // case does not count
}

TEST_CASE("long names allow a third of their length in typos") {
  const std::vector<std::string> keys = {"ge.exec.disableReuseMemory", "ge.exec.intraOpThreads", "ge.dumpGraphDir"};
  CHECK(Closest("ge.exec.disableReuseMemry", keys) == "ge.exec.disableReuseMemory");
  CHECK(Closest("ge.exec.disableReuse", keys) == "ge.exec.disableReuseMemory");  // 6 edits of 20 characters
  CHECK(Closest("ge.exec.intraopthread", keys) == "ge.exec.intraOpThreads");
  CHECK(Closest("ge.exec.somethingElse", keys) == "<none>");
}

TEST_CASE("nothing is suggested for names that are not near any candidate") {
  CHECK(Closest("frobnicate") == "<none>");
  CHECK(Closest("x") == "<none>");  // replacing a whole name is no typo
  CHECK(Closest("") == "<none>");
  CHECK(Closest("fly", {"compile", "run", "info", "viz", "quantize", "compare"}) == "<none>");
  CHECK(Closest("loop", {}) == "<none>");
}

TEST_CASE("the nearest candidate wins, and the first of equally near ones") {
  CHECK(Closest("loopp", {"lop", "loop"}) == "loop");
  CHECK(Closest("ab", {"abc", "abd"}) == "abc");
}

}  // namespace
}  // namespace ge
