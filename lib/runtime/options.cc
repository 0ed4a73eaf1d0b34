#include "runtime/options.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/closest_name.h"
#include "runtime/execute/usable_cores.h"

namespace ge::runtime {
namespace {

// Each stream is a worker thread on the CPU; more than this is never useful.
constexpr int kMaxStreams = 64;
// Thread counts beyond any machine's cores: an OpenMP team or a worker pool of
// tens of thousands of threads crashes libgomp (65536) or exhausts memory,
// and a .gem file stores these options, so a stranger's file could ask for it.
constexpr int kMaxThreads = 1024;

using OptionParser = std::function<void(const std::string& key, const std::string& value, RuntimeOptions& out)>;

[[noreturn]] void Invalid(const std::string& key, const std::string& value, const std::string& expected) {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("option {}: invalid value '{}'; expected {}", key, value, expected));
}

// A whole number from `min` to `max` (sizes and counts).
OptionParser ParseCount(size_t min, std::string expected, size_t RuntimeOptions::*field,
                        uint64_t max = std::numeric_limits<uint64_t>::max()) {
  return [=](const std::string& key, const std::string& value, RuntimeOptions& out) {
    uint64_t count = 0;
    auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), count);
    if (value.empty() || error != std::errc() || end != value.data() + value.size() || count < min || count > max) {
      Invalid(key, value, expected);
    }
    out.*field = static_cast<size_t>(count);
  };
}

// GE's switches spelled 0 / 1.
OptionParser ParseSwitch(bool RuntimeOptions::*field) {
  return [=](const std::string& key, const std::string& value, RuntimeOptions& out) {
    if (value != "0" && value != "1") Invalid(key, value, "0 or 1");
    out.*field = value == "1";
  };
}

// One of a fixed set of GE mode names.
OptionParser ParseMode(std::vector<std::string> modes, std::string RuntimeOptions::*field) {
  return [=](const std::string& key, const std::string& value, RuntimeOptions& out) {
    if (std::find(modes.begin(), modes.end(), value) == modes.end()) {
      Invalid(key, value, fmt::format("one of {}", fmt::join(modes, ", ")));
    }
    out.*field = value;
  };
}

// The path of a file read at compile time; only its presence is checked here.
OptionParser ParsePath(std::string RuntimeOptions::*field) {
  return [=](const std::string& key, const std::string& value, RuntimeOptions& out) {
    if (value.empty()) Invalid(key, value, "the path of a file");
    out.*field = value;
  };
}

// Comma-separated names, blanks around them dropped, empty ones skipped.
std::vector<std::string> SplitList(const std::string& value) {
  std::vector<std::string> names;
  size_t start = 0;
  while (start <= value.size()) {
    size_t comma = std::min(value.find(',', start), value.size());
    std::string name = value.substr(start, comma - start);
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) names.push_back(name);
    start = comma + 1;
  }
  return names;
}

// Checked before either value is judged: giving both is the first mistake.
void CheckOnePrecisionMode(const Options& options) {
  if (options.count("ge.exec.precision_mode") != 0 && options.count("ge.exec.precision_mode_v2") != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                "options ge.exec.precision_mode and ge.exec.precision_mode_v2 cannot be given together; "
                "use precision_mode_v2 alone");
  }
}

// Rules that involve several options (docs/precision.md).
void CheckPrecisionOptions(const RuntimeOptions& parsed) {
  if (!parsed.optypelist_for_implmode.empty() && parsed.impl_mode != kHighPrecision &&
      parsed.impl_mode != kHighPerformance) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("option ge.optypelistForImplmode needs ge.opSelectImplmode high_precision or "
                            "high_performance, not '{}'",
                            parsed.impl_mode));
  }
  bool mixed = parsed.precision_mode.starts_with("allow_mix_precision") ||
               parsed.precision_mode_v2.starts_with("mixed_");
  if (!parsed.modify_mixlist.empty() && !mixed) {
    throw Error(ErrorCode::kInvalidArgument,
                "option ge.exec.modify_mixlist applies only with ge.exec.precision_mode allow_mix_precision* or "
                "ge.exec.precision_mode_v2 mixed_float16/mixed_bfloat16");
  }
}

const std::map<std::string, OptionParser>& Parsers() {
  static const std::map<std::string, OptionParser> parsers = {
      {"ge.exec.disableReuseMemory", ParseSwitch(&RuntimeOptions::disable_reuse_memory)},
      {"ge.exec.releasePackedConstants", ParseSwitch(&RuntimeOptions::release_packed_constants)},
      {"ge.disablePasses",
       // Pass names are checked by the PassManager, which knows the registered ones.
       [](const std::string&, const std::string& value, RuntimeOptions& out) {
         for (std::string& name : SplitList(value)) out.disabled_passes.insert(std::move(name));
       }},
      {"ge.dumpGraphDir",
       [](const std::string&, const std::string& value, RuntimeOptions& out) { out.dump_graph_dir = value; }},
      {"ge.exec.intraOpThreads",
       [](const std::string& key, const std::string& value, RuntimeOptions& out) {
         int threads = -1;
         auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), threads);
         if (error != std::errc() || end != value.data() + value.size() || threads < 0 || threads > kMaxThreads) {
           Invalid(key, value, fmt::format("an integer from 0 to {} (0 = all cores)", kMaxThreads));
         }
         out.intra_op_threads = threads;
       }},
      {"ge.enableSingleStream",
       [](const std::string& key, const std::string& value, RuntimeOptions& out) {
         if (value != "true" && value != "false") Invalid(key, value, "true or false");
         out.single_stream = value == "true";
       }},
      {"ge.streamMaxParallelNum",
       // GE spells it per engine ("AIcoreEngine:4"); ge has one engine, so a plain count.
       [](const std::string& key, const std::string& value, RuntimeOptions& out) {
         int streams = 0;
         auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), streams);
         if (error != std::errc() || end != value.data() + value.size() || streams < 1 || streams > kMaxStreams) {
           Invalid(key, value, fmt::format("an integer from 1 to {} (the most streams steps run on at once)", kMaxStreams));
         }
         out.max_streams = streams;
       }},
      {"ge.exec.maxArenas", ParseCount(0, "a non-negative integer (0 = no bound)", &RuntimeOptions::max_arenas)},
      {"ge.exec.asyncWorkers", ParseCount(1, fmt::format("an integer from 1 to {}", kMaxThreads),
                                          &RuntimeOptions::async_workers, kMaxThreads)},
      {"ge.exec.dynamicPlanCacheBytes",
       ParseCount(0, "a non-negative integer of bytes (0 = no per-shape plans)",
                  &RuntimeOptions::dynamic_plan_cache_bytes)},
      {"ge.exec.dynamicPlanAfterRuns",
       ParseCount(1, "an integer >= 1 (the run at one input-shape signature that compiles its static plan)",
                  &RuntimeOptions::dynamic_plan_after_runs)},
      {"ge.exec.dynamicPackWeights", ParseSwitch(&RuntimeOptions::dynamic_pack_weights)},
      {"ge.exec.symbolicShapes", ParseSwitch(&RuntimeOptions::symbolic_shapes)},
      {"ge.exec.maxLoopIterations",
       ParseCount(0, "a non-negative integer (the most iterations of one Loop run; 0 = no bound)",
                  &RuntimeOptions::max_loop_iterations)},
      // Byte sizes are counted in int64, so a larger cap would mean no cap.
      {"ge.maxTensorBytes", ParseCount(1, "an integer of bytes from 1 to 9223372036854775807",
                                       &RuntimeOptions::max_tensor_bytes, std::numeric_limits<int64_t>::max())},
      {"ge.graphRunMode",
       [](const std::string& key, const std::string& value, RuntimeOptions&) {
         if (value == "1") {
           throw Error(ErrorCode::kUnsupported,
                       fmt::format("option {}: '1' (training) is not supported; ge runs inference graphs (0)", key));
         }
         if (value != "0") Invalid(key, value, "0 (inference)");
       }},
      {"ge.exec.precision_mode",
       ParseMode({"must_keep_origin_dtype", "force_fp32", "force_fp16", "allow_fp32_to_fp16", "cube_fp16in_fp32out",
                  "allow_mix_precision", "allow_mix_precision_fp16", "allow_mix_precision_bf16",
                  "allow_fp32_to_bf16"},
                 &RuntimeOptions::precision_mode)},
      {"ge.exec.precision_mode_v2",
       ParseMode({"origin", "fp16", "cube_fp16in_fp32out", "mixed_float16", "mixed_bfloat16"},
                 &RuntimeOptions::precision_mode_v2)},
      {"ge.keepDtype", ParsePath(&RuntimeOptions::keep_dtype)},
      {"ge.exec.modify_mixlist", ParsePath(&RuntimeOptions::modify_mixlist)},
      {"ge.opSelectImplmode",
       [](const std::string& key, const std::string& value, RuntimeOptions& out) {
         ParseMode(ImplModeSelections(), &RuntimeOptions::impl_mode)(key, value, out);
         out.impl_mode_given = true;
       }},
      {"ge.optypelistForImplmode",
       [](const std::string& key, const std::string& value, RuntimeOptions& out) {
         out.optypelist_for_implmode = SplitList(value);
         if (out.optypelist_for_implmode.empty()) Invalid(key, value, "comma-separated op types, e.g. SoftmaxV2,Gelu");
       }},
      {"ge.exec.op_precision_mode", ParsePath(&RuntimeOptions::op_precision_mode)},
      {"ge.exec.device", ParseMode({"cpu", "ascend"}, &RuntimeOptions::device)},
      {"ge.exec.deviceId", ParseCount(0, "a non-negative device id", &RuntimeOptions::device_id)},
  };
  return parsers;
}

// Names the closest valid key first, since a typo is the usual cause.
[[noreturn]] void UnknownOption(const std::string& key) {
  std::vector<std::string> valid;
  for (const auto& entry : Parsers()) valid.push_back(entry.first);
  const std::optional<std::string> closest = ClosestName(key, valid);
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("unknown option '{}'; {}valid options: {}", key,
                          closest ? fmt::format("did you mean '{}'? ", *closest) : "", fmt::join(valid, ", ")));
}

}  // namespace

size_t DefaultRunConcurrency() { return static_cast<size_t>(UsableCores()); }

RuntimeOptions ParseOptions(const Options& options) {
  RuntimeOptions parsed;
  const auto& parsers = Parsers();
  CheckOnePrecisionMode(options);
  for (const auto& [key, value] : options) {
    auto parser = parsers.find(key);
    if (parser == parsers.end()) UnknownOption(key);
    parser->second(key, value, parsed);
  }
  CheckPrecisionOptions(parsed);
  return parsed;
}

void CheckLoadOptions(const Options& options) {
  static const std::set<std::string> kLoadOptions = {"ge.exec.intraOpThreads", "ge.exec.maxArenas",
                                                     "ge.exec.asyncWorkers", "ge.exec.dynamicPlanCacheBytes",
                                                     "ge.exec.dynamicPlanAfterRuns",
                                                     "ge.exec.dynamicPackWeights", "ge.exec.releasePackedConstants",
                                                     "ge.exec.symbolicShapes",
                                                     "ge.exec.maxLoopIterations", "ge.maxTensorBytes"};
  for (const auto& [key, value] : options) {
    // A misspelled key is reported as such, not as a compile-time option.
    if (!Parsers().count(key)) UnknownOption(key);
    if (!kLoadOptions.count(key)) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("option {} is fixed when the model is compiled and cannot change when loading it; "
                              "options allowed at load time: {}",
                              key, fmt::join(kLoadOptions, ", ")));
    }
  }
}

Options MergeOptions(const Options& base, const Options& overrides) {
  Options merged = base;
  for (const auto& [key, value] : overrides) merged[key] = value;
  return merged;
}

}  // namespace ge::runtime
