#include "options.h"

#include <fmt/format.h>

namespace ge::cli {
namespace {

constexpr const char* kThreadsOption = "ge.exec.intraOpThreads";

void AddOption(Options& options, const std::string& key, const std::string& value) {
  if (!options.emplace(key, value).second) {
    throw UsageError(fmt::format("option '{}' is given twice ('{}' and '{}')", key, options[key], value));
  }
}

}  // namespace

Options CollectOptions(const ParsedArgs& args) {
  Options options;
  for (const std::string& text : args.Values(kOptionFlag.name)) {
    auto [key, value] = SplitKeyValue(text, kOptionFlag.name);
    AddOption(options, key, value);
  }
  if (args.Has(kThreadsFlag.name)) {
    AddOption(options, kThreadsOption, std::to_string(args.IntValue(kThreadsFlag.name, 0, 1)));
  }
  return options;
}

}  // namespace ge::cli
