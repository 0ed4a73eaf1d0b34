#include "args.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include <fmt/core.h>

#include "graph/closest_name.h"

namespace ge::cli {
namespace {

const FlagSpec kHelpFlag{"help", "", false, "show this help and exit"};

const FlagSpec* FindFlag(const CommandSpec& spec, const std::string& name) {
  if (name == kHelpFlag.name) return &kHelpFlag;
  auto it = std::find_if(spec.flags.begin(), spec.flags.end(), [&](const FlagSpec& f) { return f.name == name; });
  return it == spec.flags.end() ? nullptr : &*it;
}

// "-o" -> "--output" when a flag declares that short name; else the argument unchanged.
std::string Expand(const CommandSpec& spec, const std::string& arg) {
  if (arg.size() != 2 || arg[0] != '-' || arg[1] == '-') return arg;
  auto it = std::find_if(spec.flags.begin(), spec.flags.end(), [&](const FlagSpec& f) { return f.short_name == arg[1]; });
  return it == spec.flags.end() ? arg : "--" + it->name;
}

// `typed` is the flag as given ("--loops", "-loop"); the suggestion compares
// its name without dashes with every flag of the command.
[[noreturn]] void UnknownFlag(const CommandSpec& spec, const std::string& typed) {
  std::vector<std::string> names = {kHelpFlag.name};
  for (const FlagSpec& flag : spec.flags) names.push_back(flag.name);
  std::string bare = typed.substr(0, typed.find('='));
  bare.erase(0, bare.find_first_not_of('-'));
  const std::optional<std::string> closest = ClosestName(bare, names);
  throw UsageError(closest ? fmt::format("unknown option '{}' for 'ge {}'; did you mean '--{}'?", typed, spec.name,
                                         *closest)
                           : fmt::format("unknown option '{}' for 'ge {}' (see 'ge {} --help')", typed, spec.name,
                                         spec.name));
}

size_t ExpectedPositionals(const CommandSpec& spec) {
  // One per word of spec.positional ("MODEL", "REFERENCE MODEL").
  return spec.positional.empty() ? 0 : 1 + static_cast<size_t>(std::ranges::count(spec.positional, ' '));
}

std::string WrongPositionals(const CommandSpec& spec, const std::vector<std::string>& given) {
  const size_t expected = ExpectedPositionals(spec);
  if (expected == 0) {
    return fmt::format("'ge {}' takes no positional argument, got '{}'", spec.name, given.front());
  }
  const FlagSpec* alternative = spec.positional_flag.empty() ? nullptr : FindFlag(spec, spec.positional_flag);
  return fmt::format("'ge {}' expects exactly {}{}{} (see 'ge {} --help')", spec.name, expected == 1 ? "one " : "",
                     spec.positional,
                     alternative ? fmt::format(" or --{} {}", alternative->name, alternative->value_name) : "",
                     spec.name);
}

}  // namespace

std::string ParsedArgs::Value(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> ParsedArgs::Values(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

int64_t ParsedArgs::IntValue(const std::string& flag, int64_t fallback, int64_t min_value) const {
  if (!Has(flag)) return fallback;
  const std::string text = Value(flag);
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < min_value) {
    throw UsageError(fmt::format("--{} expects an integer >= {}, got '{}'", flag, min_value, text));
  }
  return value;
}

ParsedArgs ParseArgs(const CommandSpec& spec, std::span<const char* const> args) {
  ParsedArgs parsed;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string arg = Expand(spec, args[i]);
    if (arg.size() < 2 || arg.rfind("--", 0) != 0 || arg == "--") {
      if (arg.size() > 1 && arg[0] == '-') UnknownFlag(spec, arg);
      parsed.positional_.push_back(arg);
      continue;
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    const FlagSpec* flag = FindFlag(spec, name);
    if (flag == nullptr) UnknownFlag(spec, "--" + name);
    std::string value;
    if (flag->value_name.empty()) {
      if (equals != std::string::npos) throw UsageError(fmt::format("--{} takes no value", name));
    } else if (equals != std::string::npos) {
      value = arg.substr(equals + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      throw UsageError(fmt::format("--{} needs a value: --{} {}", name, name, flag->value_name));
    }
    std::vector<std::string>& slot = parsed.values_[name];
    if (!slot.empty() && !flag->repeatable) throw UsageError(fmt::format("--{} may be given only once", name));
    slot.push_back(std::move(value));
  }
  if (parsed.Has(kHelpFlag.name)) return parsed;
  if (!spec.positional_flag.empty() && parsed.Has(spec.positional_flag)) {
    const std::string value = parsed.values_.extract(spec.positional_flag).mapped().front();
    if (!parsed.positional_.empty()) {
      throw UsageError(fmt::format("'ge {}' got both {} '{}' and --{} '{}'; give one of them", spec.name,
                                   spec.positional, parsed.positional_.front(), spec.positional_flag, value));
    }
    parsed.positional_.push_back(value);
  }
  if (parsed.positional_.size() != ExpectedPositionals(spec)) {
    throw UsageError(WrongPositionals(spec, parsed.positional_));
  }
  return parsed;
}

std::string HelpText(const CommandSpec& spec) {
  std::string text = fmt::format("usage: ge {}{}{} [options]\n\n{}\n\noptions:\n", spec.name,
                                 spec.positional.empty() ? "" : " ", spec.positional, spec.summary);
  std::vector<const FlagSpec*> flags;
  for (const FlagSpec& flag : spec.flags) flags.push_back(&flag);
  flags.push_back(&kHelpFlag);
  for (const FlagSpec* flag : flags) {
    std::string left = (flag->short_name != 0 ? fmt::format("-{}, ", flag->short_name) : std::string()) + "--" +
                       flag->name + (flag->value_name.empty() ? "" : " " + flag->value_name);
    if (flag->repeatable) left += " (repeatable)";
    text += fmt::format("  {:<34} {}\n", left, flag->help);
  }
  return text;
}

std::pair<std::string, std::string> SplitKeyValue(const std::string& text, const std::string& flag) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw UsageError(fmt::format("--{} expects KEY=VALUE, got '{}'", flag, text));
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

}  // namespace ge::cli
