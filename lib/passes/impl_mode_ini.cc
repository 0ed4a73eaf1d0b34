#include "passes/impl_mode_ini.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/impl_mode.h"
#include "passes/config_text.h"

namespace ge::passes {

// Generated at build time from data/impl_mode/*.ini (cmake/embed_text_files.cmake):
// file name -> content.
const std::map<std::string_view, std::string_view>& EmbeddedImplModeFiles();

namespace {

constexpr std::string_view kByOpType = "ByOpType";
constexpr std::string_view kByNodeName = "ByNodeName";
constexpr std::string_view kAllOpsFile = "all_ops_impl_mode.ini";

struct IniLine {
  std::string section;  // "" before the first section header
  std::string key;
  std::string value;
  int line = 0;
};

// The `key=value` lines of an ini text with their sections; `#` comments,
// blank lines and section headers consumed. Section names are checked by the caller.
std::vector<IniLine> ReadIniLines(std::string_view text, const std::string& file) {
  std::vector<IniLine> lines;
  std::string section;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t newline = std::min(text.find('\n', start), text.size());
    std::string_view raw = text.substr(start, newline - start);
    start = newline + 1;
    ++number;
    std::string_view line = TrimBlanks(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') ConfigError(file, number, fmt::format("malformed section header '{}'", line));
      section = std::string(TrimBlanks(line.substr(1, line.size() - 2)));
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      ConfigError(file, number, fmt::format("expected 'key=value', got '{}'", line));
    }
    std::string_view key = TrimBlanks(line.substr(0, equals));
    std::string_view value = TrimBlanks(line.substr(equals + 1));
    if (key.empty()) ConfigError(file, number, fmt::format("the line '{}' has no key before '='", line));
    if (value.empty()) ConfigError(file, number, fmt::format("'{}' has no value after '='", key));
    lines.push_back({section, std::string(key), std::string(value), number});
  }
  return lines;
}

void CheckKnownMode(const std::string& mode, const std::string& file, int line, const std::string& key) {
  const auto& known = KnownImplModes();
  if (std::find(known.begin(), known.end(), mode) == known.end()) {
    ConfigError(
        file, line,
        fmt::format("unknown implementation mode '{}' for '{}'; valid modes: {}", mode, key, fmt::join(known, ", ")));
  }
}

}  // namespace

ImplModeFile ParseImplModeFile(std::string_view text, const std::string& file) {
  ImplModeFile parsed;
  parsed.file = file;
  for (IniLine& line : ReadIniLines(text, file)) {
    std::map<std::string, ImplModeEntry>* target = nullptr;
    if (line.section.empty() || line.section == kByOpType) {
      target = &parsed.by_op_type;
    } else if (line.section == kByNodeName) {
      target = &parsed.by_node_name;
    } else {
      ConfigError(file, line.line,
                  fmt::format("unknown section [{}]; valid sections: [{}], [{}] (or none: OpType=mode lines)",
                              line.section, kByOpType, kByNodeName));
    }
    if (line.value.find(',') != std::string::npos) {
      ConfigError(
          file, line.line,
          fmt::format("'{}' sets several modes ('{}'); a mode file sets one mode per key", line.key, line.value));
    }
    CheckKnownMode(line.value, file, line.line, line.key);
    ImplModeEntry entry{line.value, file, line.line};
    auto [it, inserted] = target->emplace(line.key, entry);
    if (!inserted) {
      ConfigError(file, line.line, fmt::format("'{}' is already set on line {}", line.key, it->second.line));
    }
  }
  return parsed;
}

ImplModeFile LoadImplModeFile(const std::string& path) { return ParseImplModeFile(ReadConfigFile(path), path); }

OpImplModes ParseOpImplModes(std::string_view text, const std::string& file) {
  OpImplModes parsed;
  std::map<std::string, int> defined_on;
  for (const IniLine& line : ReadIniLines(text, file)) {
    if (!line.section.empty()) ConfigError(file, line.line, fmt::format("unexpected section [{}]", line.section));
    std::vector<std::string> modes;
    size_t start = 0;
    while (start <= line.value.size()) {
      size_t comma = std::min(line.value.find(',', start), line.value.size());
      std::string mode(TrimBlanks(std::string_view(line.value).substr(start, comma - start)));
      start = comma + 1;
      if (mode.empty()) ConfigError(file, line.line, fmt::format("empty mode in '{}={}'", line.key, line.value));
      CheckKnownMode(mode, file, line.line, line.key);
      if (std::find(modes.begin(), modes.end(), mode) != modes.end()) {
        ConfigError(file, line.line, fmt::format("'{}' lists '{}' twice", line.key, mode));
      }
      modes.push_back(mode);
    }
    auto [it, inserted] = defined_on.emplace(line.key, line.line);
    if (!inserted) ConfigError(file, line.line, fmt::format("'{}' is already listed on line {}", line.key, it->second));
    parsed[line.key] = std::move(modes);
  }
  return parsed;
}

std::string_view BuiltinImplModeText(std::string_view file_name) {
  const auto& files = EmbeddedImplModeFiles();
  auto it = files.find(file_name);
  return it == files.end() ? std::string_view{} : it->second;
}

const ImplModeFile& BuiltinImplModeFile(const std::string& name) {
  // Parsed once per name; the built-in names are few and fixed.
  static const std::map<std::string, ImplModeFile> files = [] {
    std::map<std::string, ImplModeFile> parsed;
    for (const auto& [file_name, text] : EmbeddedImplModeFiles()) {
      if (file_name == kAllOpsFile) continue;
      std::string name(file_name.substr(0, file_name.rfind(".ini")));
      parsed.emplace(name, ParseImplModeFile(text, std::string(file_name)));
    }
    return parsed;
  }();
  auto it = files.find(name);
  if (it == files.end()) {
    throw Error(ErrorCode::kInternal, fmt::format("no built-in implementation-mode file '{}.ini'", name));
  }
  return it->second;
}

const OpImplModes& AllOpsImplModes() {
  static const OpImplModes modes = ParseOpImplModes(BuiltinImplModeText(kAllOpsFile), std::string(kAllOpsFile));
  return modes;
}

void CheckModeAllowed(const ImplModeEntry& entry, const std::string& op_type, const std::string& key) {
  const OpImplModes& all = AllOpsImplModes();
  auto it = all.find(op_type);
  if (it == all.end()) {
    ConfigError(entry.file, entry.line,
                fmt::format("{}={}: op {} has a single implementation ({} does not list it); allowed modes: none", key,
                            entry.mode, op_type, kAllOpsFile));
  }
  if (std::find(it->second.begin(), it->second.end(), entry.mode) == it->second.end()) {
    ConfigError(entry.file, entry.line,
                fmt::format("{}={}: op {} does not implement '{}'; allowed modes ({}): {}", key, entry.mode, op_type,
                            entry.mode, kAllOpsFile, fmt::join(it->second, ", ")));
  }
}

}  // namespace ge::passes
