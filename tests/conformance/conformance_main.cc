// ge_conformance: runs the ONNX backend test cases of libonnx-testdata through
// ge (import, compile, run on the CPU) and compares the outputs. See
// docs/conformance.md.
#include <onnx/onnx_pb.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "case_exclusion.h"
#include "case_runner.h"
#include "expected_failures.h"
#include "isolated_runner.h"
#include "json_writer.h"

namespace fs = std::filesystem;
using namespace ge::conformance;

namespace {

// ctest's SKIP_RETURN_CODE for a missing libonnx-testdata.
constexpr int kExitSkipped = 77;
constexpr int kExitUnexpected = 1;
constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    "usage: ge_conformance [options] DIR...\n"
    "  DIR                 a folder of cases: a name under --data-root (node, simple, pytorch-converted,\n"
    "                      pytorch-operator) or a path\n"
    "  --data-root PATH    where the named folders are (default " GE_CONFORMANCE_DATA_ROOT ")\n"
    "  --expected FILE     the expected-failures list (default tests/conformance/expected_failures.txt)\n"
    "  --filter SUBSTR     run only the cases whose <dir>/<case> contains SUBSTR (repeatable: any of them)\n"
    "  --option KEY=VALUE  a ge.* compile option for every case (repeatable), e.g. ge.exec.device=ascend\n"
    "  --jobs N            cases run at once, each in its own process (default 2)\n"
    "  --timeout SECONDS   per-case limit (default 120)\n"
    "  --json              one JSON object on stdout instead of the text report\n"
    "  --list-excluded     also list the excluded cases with their reasons\n"
    "  --update-expected   rewrite the expected-failures list from this run's results\n";

struct Args {
  fs::path data_root = GE_CONFORMANCE_DATA_ROOT;
  fs::path expected = GE_CONFORMANCE_EXPECTED_FILE;
  std::vector<std::string> filters;  // empty: every case
  ge::Options options;
  int jobs = 2;
  double timeout = 120;
  bool json = false;
  bool list_excluded = false;
  bool update_expected = false;
  std::vector<std::string> dirs;
};

enum class Outcome { kPassed, kFailed, kExpectedFailure, kUnexpectedPass, kExcluded };

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassed: return "passed";
    case Outcome::kFailed: return "failed";
    case Outcome::kExpectedFailure: return "expected-to-fail";
    case Outcome::kUnexpectedPass: return "now-passes";
    case Outcome::kExcluded: return "excluded";
  }
  return "";
}

struct CaseResult {
  std::string key;  // "<dir>/<case>"
  fs::path path;
  Outcome outcome = Outcome::kFailed;
  std::string message;  // failure or exclusion reason
  double seconds = 0;
};

struct DirResult {
  std::string name;
  std::vector<CaseResult> cases;
  double seconds = 0;
  int Count(Outcome outcome) const {
    int n = 0;
    for (const CaseResult& c : cases) n += c.outcome == outcome;
    return n;
  }
};

std::optional<Args> ParseArgs(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return std::nullopt;
    } else if (arg == "--data-root") {
      args.data_root = value();
    } else if (arg == "--expected") {
      args.expected = value();
    } else if (arg == "--filter") {
      args.filters.push_back(value());
    } else if (arg == "--option") {
      const std::string option = value();
      const size_t equals = option.find('=');
      if (equals == std::string::npos) throw std::invalid_argument("--option needs KEY=VALUE, got " + option);
      args.options[option.substr(0, equals)] = option.substr(equals + 1);
    } else if (arg == "--jobs") {
      args.jobs = std::stoi(value());
    } else if (arg == "--timeout") {
      args.timeout = std::stod(value());
    } else if (arg == "--json") {
      args.json = true;
    } else if (arg == "--list-excluded") {
      args.list_excluded = true;
    } else if (arg == "--update-expected") {
      args.update_expected = true;
    } else if (arg.starts_with("-")) {
      throw std::invalid_argument("unknown option " + arg);
    } else {
      args.dirs.push_back(arg);
    }
  }
  if (args.dirs.empty()) throw std::invalid_argument("no DIR given");
  return args;
}

fs::path DirPath(const Args& args, const std::string& dir) {
  return dir.find('/') == std::string::npos ? args.data_root / dir : fs::path(dir);
}

// Why a case is out of scope, from its model; a model that cannot be parsed is
// in scope (it fails at import and is reported there).
std::optional<std::string> Exclusion(const fs::path& case_dir) {
  std::ifstream in(case_dir / "model.onnx", std::ios::binary);
  onnx::ModelProto model;
  if (!in || !model.ParseFromIstream(&in)) return std::nullopt;
  return ExclusionReason(model);
}

// ge's errors start with the model's path; the case key already says which.
std::string WithoutModelPath(std::string message, const fs::path& case_dir) {
  const std::string prefix = (case_dir / "model.onnx").string() + ": ";
  for (size_t at = message.find(prefix); at != std::string::npos; at = message.find(prefix, at)) {
    message.erase(at, prefix.size());
  }
  return message;
}

DirResult RunDir(const Args& args, const fs::path& dir_path, const ExpectedFailures& expected) {
  const auto start = std::chrono::steady_clock::now();
  DirResult dir{dir_path.filename().string(), {}, 0};
  std::vector<fs::path> case_dirs;
  for (const auto& entry : fs::directory_iterator(dir_path)) {
    if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) case_dirs.push_back(entry.path());
  }
  std::sort(case_dirs.begin(), case_dirs.end());

  std::vector<size_t> to_run;  // indices into dir.cases
  for (const fs::path& case_dir : case_dirs) {
    CaseResult result;
    result.key = dir.name + "/" + case_dir.filename().string();
    result.path = case_dir;
    const bool wanted = args.filters.empty() || std::any_of(args.filters.begin(), args.filters.end(), [&](const auto& f) {
      return result.key.find(f) != std::string::npos;
    });
    if (!wanted) continue;
    if (auto reason = Exclusion(case_dir)) {
      result.outcome = Outcome::kExcluded;
      result.message = *reason;
    } else {
      to_run.push_back(dir.cases.size());
    }
    dir.cases.push_back(std::move(result));
  }

  const Tolerance tolerance;
  RunIsolated(
      to_run.size(), [&](size_t i) { return RunCase(dir.cases[to_run[i]].path, tolerance, args.options); }, args.jobs, args.timeout,
      [&](size_t i, const JobResult& job) {
        CaseResult& result = dir.cases[to_run[i]];
        const bool listed = expected.count(result.key) > 0;
        result.seconds = job.seconds;
        result.message = WithoutModelPath(job.message, result.path);
        if (job.passed) {
          result.outcome = listed ? Outcome::kUnexpectedPass : Outcome::kPassed;
        } else {
          result.outcome = listed ? Outcome::kExpectedFailure : Outcome::kFailed;
        }
      });
  dir.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return dir;
}

std::string SummaryLine(const DirResult& dir) {
  const int passed = dir.Count(Outcome::kPassed) + dir.Count(Outcome::kUnexpectedPass);
  const int failed = dir.Count(Outcome::kFailed);
  const int expected_failures = dir.Count(Outcome::kExpectedFailure);
  const int in_scope = passed + failed + expected_failures;
  const double percent = in_scope == 0 ? 100.0 : 100.0 * passed / in_scope;
  return fmt::format(
      "conformance {}: passed {}, failed {}, expected-to-fail {}, excluded {} ({:.1f}% of {} non-excluded)", dir.name,
      passed, failed, expected_failures, dir.Count(Outcome::kExcluded), percent, in_scope);
}

void PrintText(const std::vector<DirResult>& dirs, bool list_excluded) {
  for (const DirResult& dir : dirs) {
    for (const CaseResult& c : dir.cases) {
      if (c.outcome == Outcome::kFailed) fmt::print("  FAIL {}: {}\n", c.key, c.message);
      if (c.outcome == Outcome::kUnexpectedPass) {
        fmt::print("  PASS {}: now passes: remove it from expected_failures.txt\n", c.key);
      }
      if (list_excluded && c.outcome == Outcome::kExcluded) fmt::print("  EXCLUDED {}: {}\n", c.key, c.message);
    }
    fmt::print("{}\n", SummaryLine(dir));
  }
}

void PrintJson(const std::vector<DirResult>& dirs) {
  ge::cli::JsonWriter json;
  json.BeginObject().Key("directories").BeginArray();
  for (const DirResult& dir : dirs) {
    json.BeginObject()
        .Key("name").String(dir.name)
        .Key("summary").String(SummaryLine(dir))
        .Key("passed").Int(dir.Count(Outcome::kPassed) + dir.Count(Outcome::kUnexpectedPass))
        .Key("failed").Int(dir.Count(Outcome::kFailed))
        .Key("expected_to_fail").Int(dir.Count(Outcome::kExpectedFailure))
        .Key("now_passes").Int(dir.Count(Outcome::kUnexpectedPass))
        .Key("excluded").Int(dir.Count(Outcome::kExcluded))
        .Key("seconds").Number(dir.seconds)
        .Key("cases").BeginArray();
    for (const CaseResult& c : dir.cases) {
      json.BeginObject().Key("case").String(c.key).Key("outcome").String(OutcomeName(c.outcome));
      if (!c.message.empty()) json.Key("message").String(c.message);
      if (c.outcome != Outcome::kExcluded) json.Key("seconds").Number(c.seconds);
      json.EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  fmt::print("{}\n", json.str());
}

// The list with this run's cases replaced by their current failures; cases
// not run this time (other folders, filtered out) keep their entries.
ExpectedFailures UpdatedExpectedFailures(ExpectedFailures expected, const std::vector<DirResult>& dirs) {
  for (const DirResult& dir : dirs) {
    for (const CaseResult& c : dir.cases) {
      expected.erase(c.key);
      if (c.outcome == Outcome::kFailed || c.outcome == Outcome::kExpectedFailure) {
        expected[c.key] = ReasonOf(c.message);
      }
    }
  }
  return expected;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  try {
    auto parsed = ParseArgs(argc, argv);
    if (!parsed) return 0;
    args = std::move(*parsed);
  } catch (const std::exception& e) {
    std::cerr << "ge_conformance: error: " << e.what() << "\n" << kUsage;
    return kExitUsage;
  }
  try {
    const ExpectedFailures expected = ReadExpectedFailures(args.expected);
    std::vector<DirResult> dirs;
    for (const std::string& dir : args.dirs) {
      const fs::path path = DirPath(args, dir);
      if (!fs::is_directory(path)) {
        fmt::print("conformance {}: skipped: {} not found (install Debian's libonnx-testdata)\n",
                   path.filename().string(), path.string());
        continue;
      }
      dirs.push_back(RunDir(args, path, expected));
    }
    if (dirs.empty()) return kExitSkipped;
    args.json ? PrintJson(dirs) : PrintText(dirs, args.list_excluded);
    if (args.update_expected) {
      WriteExpectedFailures(args.expected, UpdatedExpectedFailures(expected, dirs));
      return 0;
    }
    for (const DirResult& dir : dirs) {
      if (dir.Count(Outcome::kFailed) + dir.Count(Outcome::kUnexpectedPass) > 0) return kExitUnexpected;
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ge_conformance: error: " << e.what() << "\n";
    return kExitUsage;
  }
}
