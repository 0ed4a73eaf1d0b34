// A small command-line parser for the `ge` subcommands.
//
// Each command declares its flags once (name, whether it takes a value, whether
// it may repeat, help text); the same declaration drives parsing, the error
// for an unknown flag and the --help text, so they cannot drift apart.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace ge::cli {

// A mistake in how the command was invoked (exit status 2, like most CLIs).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FlagSpec {
  std::string name;        // without the leading "--"
  std::string value_name;  // empty for a switch that takes no value
  bool repeatable = false;
  std::string help;
  char short_name = 0;  // e.g. 'o' for "-o"; 0 when the flag has only its long form
};

struct CommandSpec {
  std::string name;        // "run"
  std::string positional;  // "MODEL", or empty when the command takes none
  std::string summary;     // one line, shown in `ge --help` and atop `ge <command> --help`
  std::vector<FlagSpec> flags;
  // A flag that may give the single positional argument instead ("model" for
  // `ge compile --model m.onnx`, the spelling older scripts use); empty for none.
  std::string positional_flag = {};
};

class ParsedArgs {
 public:
  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(const std::string& flag) const { return values_.count(flag) != 0; }
  // The value of a single-valued flag, or `fallback` when it was not given.
  std::string Value(const std::string& flag, const std::string& fallback = "") const;
  // Every value of a repeatable flag, in command-line order.
  std::vector<std::string> Values(const std::string& flag) const;
  // A single-valued integer flag; throws UsageError when it is not an integer >= min_value.
  int64_t IntValue(const std::string& flag, int64_t fallback, int64_t min_value) const;

 private:
  friend ParsedArgs ParseArgs(const CommandSpec& spec, std::span<const char* const> args);
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
};

// Parses the arguments that follow the command name. Accepts "--flag value" and
// "--flag=value". Every command also understands --help (check Has("help")).
// The value of spec.positional_flag, when given, becomes the positional argument.
// Throws UsageError for unknown flags (suggesting the closest one), missing
// values, repeated single flags and a wrong number of positional arguments.
ParsedArgs ParseArgs(const CommandSpec& spec, std::span<const char* const> args);

std::string HelpText(const CommandSpec& spec);

// Splits "KEY=VALUE" (as given to --option and --input); `flag` names the flag in the error.
std::pair<std::string, std::string> SplitKeyValue(const std::string& text, const std::string& flag);

}  // namespace ge::cli
