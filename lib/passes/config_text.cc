#include "passes/config_text.h"

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "graph/regular_file.h"

namespace ge::passes {

std::string ReadConfigFile(const std::string& path) {
  return ReadRegularFile(path, "config file", kMaxConfigFileBytes);
}

void ConfigError(const std::string& file, int line, const std::string& message) {
  // Messages quote the file's lines, which may hold CR or binary bytes.
  throw Error(ErrorCode::kInvalidArgument, EscapeForMessage(fmt::format("{}:{}: {}", file, line, message)));
}

std::string_view TrimBlanks(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

}  // namespace ge::passes
