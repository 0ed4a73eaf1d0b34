// Helpers of the readers of user configuration files (ini files, keep_dtype
// lists, mixlist JSON): whole-file reads and errors that name file and line.
#pragma once

#include <string>
#include <string_view>

namespace ge::passes {

// The whole file, at most kMaxConfigFileBytes; throws as ReadRegularFile does
// ("PATH: cannot read config file: REASON"; kNotFound when it does not exist).
std::string ReadConfigFile(const std::string& path);

// Throws kInvalidArgument "<file>:<line>: <message>", control bytes and
// invalid UTF-8 escaped (EscapeForMessage) so that it stays one line.
[[noreturn]] void ConfigError(const std::string& file, int line, const std::string& message);

// Without leading and trailing blanks (space, tab, CR).
std::string_view TrimBlanks(std::string_view text);

}  // namespace ge::passes
