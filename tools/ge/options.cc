#include "options.h"

#include <fmt/core.h>

namespace ge::cli {
namespace {

constexpr const char* kThreadsOption = "ge.exec.intraOpThreads";

void AddOption(Options& options, const std::string& key, const std::string& value) {
  if (!options.emplace(key, value).second) {
    throw UsageError(fmt::format("option '{}' is given twice ('{}' and '{}')", key, options[key], value));
  }
}

}  // namespace

const std::vector<OptionFlag>& PrecisionFlags() {
  static const std::vector<OptionFlag> flags = {
      {{"precision_mode", "MODE", false, "ge.exec.precision_mode: must_keep_origin_dtype (default), force_fp32, ..."},
       "ge.exec.precision_mode"},
      {{"precision_mode_v2", "MODE", false, "ge.exec.precision_mode_v2: origin, ... (not with --precision_mode)"},
       "ge.exec.precision_mode_v2"},
      {{"op_select_implmode", "MODE", false,
        "ge.opSelectImplmode (deprecated): high_precision, high_performance (default), *_for_all"},
       "ge.opSelectImplmode"},
      {{"optypelist_for_implmode", "TYPES", false,
        "ge.optypelistForImplmode: op types the high_* mode applies to, comma-separated"},
       "ge.optypelistForImplmode"},
      {{"op_precision_mode", "FILE.ini", false, "ge.exec.op_precision_mode: implementation mode per op type or node"},
       "ge.exec.op_precision_mode"},
      {{"keep_dtype", "FILE", false, "ge.keepDtype: nodes (or OpType::X) that keep their dtype"}, "ge.keepDtype"},
      {{"modify_mixlist", "FILE.json", false, "ge.exec.modify_mixlist: block/trust list edits for mixed precision"},
       "ge.exec.modify_mixlist"},
  };
  return flags;
}

Options CollectOptions(const ParsedArgs& args) {
  Options options;
  for (const std::string& text : args.Values(kOptionFlag.name)) {
    auto [key, value] = SplitKeyValue(text, kOptionFlag.name);
    AddOption(options, key, value);
  }
  for (const OptionFlag& precision : PrecisionFlags()) {
    if (args.Has(precision.flag.name)) AddOption(options, precision.option, args.Value(precision.flag.name));
  }
  if (args.Has(kThreadsFlag.name)) {
    AddOption(options, kThreadsOption, std::to_string(args.IntValue(kThreadsFlag.name, 0, 1)));
  }
  return options;
}

}  // namespace ge::cli
