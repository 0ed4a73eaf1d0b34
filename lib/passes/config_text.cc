#include "passes/config_text.h"

#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::passes {

std::string ReadConfigFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, fmt::format("cannot read the file '{}'", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void ConfigError(const std::string& file, int line, const std::string& message) {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("{}:{}: {}", file, line, message));
}

std::string_view TrimBlanks(std::string_view text) {
  size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string_view::npos) return {};
  size_t end = text.find_last_not_of(" \t\r");
  return text.substr(begin, end - begin + 1);
}

}  // namespace ge::passes
