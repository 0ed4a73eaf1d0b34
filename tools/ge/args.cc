#include "args.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

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
      if (arg.size() > 1 && arg[0] == '-') {
        throw UsageError(fmt::format("unknown option '{}' for 'ge {}' (see 'ge {} --help')", arg, spec.name, spec.name));
      }
      parsed.positional_.push_back(arg);
      continue;
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    const FlagSpec* flag = FindFlag(spec, name);
    if (flag == nullptr) {
      throw UsageError(fmt::format("unknown option '--{}' for 'ge {}' (see 'ge {} --help')", name, spec.name, spec.name));
    }
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
  // One positional argument per word of spec.positional ("MODEL", "REFERENCE MODEL").
  const size_t expected =
      spec.positional.empty() ? 0 : 1 + static_cast<size_t>(std::ranges::count(spec.positional, ' '));
  if (parsed.positional_.size() != expected) {
    throw UsageError(expected == 0
                         ? fmt::format("'ge {}' takes no positional argument, got '{}'", spec.name,
                                       parsed.positional_.front())
                         : fmt::format("'ge {}' expects exactly {}{} (see 'ge {} --help')", spec.name,
                                       expected == 1 ? "one " : "", spec.positional, spec.name));
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
