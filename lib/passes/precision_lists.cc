#include "passes/precision_lists.h"

#include <map>
#include <vector>

#include <fmt/core.h>

#include "graph/op_schema.h"
#include "passes/config_text.h"

namespace ge::passes {
namespace {

constexpr std::string_view kOpTypePrefix = "OpType::";

void CheckOpType(const std::string& op_type, const std::string& file, int line) {
  if (OpRegistry::Global().Find(op_type) == nullptr) {
    ConfigError(file, line, fmt::format("unknown op type '{}' (op types as in docs/op-set.md)", op_type));
  }
}

// A JSON reader for the mixlist's shape: objects, arrays and strings, each
// remembering its line; numbers, booleans and null are rejected where read.
struct Json {
  enum class Kind { kObject, kArray, kString } kind = Kind::kString;
  std::string text;                                   // kString
  std::vector<Json> items;                            // kArray
  // kObject, in file order. Not std::pair<std::string, Json>: a pair of an
  // incomplete type does not compile with clang and libstdc++.
  struct Member;
  std::vector<Member> members;
  int line = 0;
};

struct Json::Member {
  std::string key;
  Json value;
};

class JsonReader {
 public:
  JsonReader(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Json ReadDocument() {
    Json value = ReadValue();
    SkipBlanks();
    if (pos_ != text_.size()) Fail("unexpected text after the JSON object");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const { ConfigError(file_, line_, message); }

  void SkipBlanks() {
    while (pos_ < text_.size() && std::string_view(" \t\r\n").find(text_[pos_]) != std::string_view::npos) {
      if (text_[pos_] == '\n') ++line_;
      ++pos_;
    }
  }

  void Expect(char c) {
    SkipBlanks();
    if (pos_ >= text_.size() || text_[pos_] != c) Fail(fmt::format("expected '{}'", c));
    ++pos_;
  }

  // True (and consumed) when the next character is c.
  bool Accept(char c) {
    SkipBlanks();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Json ReadValue() {
    SkipBlanks();
    Json value;
    value.line = line_;
    if (pos_ >= text_.size()) Fail("unexpected end of the file");
    char c = text_[pos_];
    if (c == '{') {
      value.kind = Json::Kind::kObject;
      ++pos_;
      if (Accept('}')) return value;
      do {
        SkipBlanks();
        std::string key = ReadString();
        Expect(':');
        value.members.push_back({std::move(key), ReadValue()});
      } while (Accept(','));
      Expect('}');
    } else if (c == '[') {
      value.kind = Json::Kind::kArray;
      ++pos_;
      if (Accept(']')) return value;
      do {
        value.items.push_back(ReadValue());
      } while (Accept(','));
      Expect(']');
    } else if (c == '"') {
      value.text = ReadString();
    } else {
      Fail("expected an object, an array or a string");
    }
    return value;
  }

  std::string ReadString() {
    if (pos_ >= text_.size() || text_[pos_] != '"') Fail("expected a string");
    ++pos_;
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\n') Fail("unterminated string");
      if (c == '\\') {
        if (pos_ >= text_.size()) break;
        char escaped = text_[pos_++];
        static const std::map<char, char> kEscapes = {{'"', '"'}, {'\\', '\\'}, {'/', '/'}, {'n', '\n'}, {'t', '\t'}};
        auto it = kEscapes.find(escaped);
        if (it == kEscapes.end()) Fail(fmt::format("unsupported escape '\\{}'", escaped));
        c = it->second;
      }
      out.push_back(c);
    }
    if (pos_ >= text_.size()) Fail("unterminated string");
    ++pos_;
    return out;
  }

  std::string_view text_;
  const std::string& file_;
  size_t pos_ = 0;
  int line_ = 1;
};

// The op types of a "to-add"/"to-remove" array.
std::set<std::string> ReadOpTypes(const Json& array, const std::string& where, const std::string& file) {
  if (array.kind != Json::Kind::kArray)
    ConfigError(file, array.line, fmt::format("{} must be an array of op types", where));
  std::set<std::string> op_types;
  for (const Json& item : array.items) {
    if (item.kind != Json::Kind::kString)
      ConfigError(file, item.line, fmt::format("{} must hold op type strings", where));
    CheckOpType(item.text, file, item.line);
    op_types.insert(item.text);
  }
  return op_types;
}

void ReadListEdits(const Json& list, const std::string& name, const std::string& file, std::set<std::string>& add,
                   std::set<std::string>& remove) {
  if (list.kind != Json::Kind::kObject) ConfigError(file, list.line, fmt::format("\"{}\" must be an object", name));
  for (const auto& [key, value] : list.members) {
    if (key == "to-add") {
      add = ReadOpTypes(value, fmt::format("\"{}\".\"to-add\"", name), file);
    } else if (key == "to-remove") {
      remove = ReadOpTypes(value, fmt::format("\"{}\".\"to-remove\"", name), file);
    } else {
      ConfigError(file, value.line,
                  fmt::format("unknown key \"{}\" in \"{}\"; valid keys: \"to-add\", \"to-remove\"", key, name));
    }
  }
  for (const std::string& op_type : add) {
    if (remove.count(op_type) != 0) {
      ConfigError(file, list.line, fmt::format("\"{}\" both adds and removes {}", name, op_type));
    }
  }
}

}  // namespace

KeepDtypeList ParseKeepDtype(std::string_view text, const std::string& file) {
  KeepDtypeList list;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t newline = std::min(text.find('\n', start), text.size());
    std::string_view line = TrimBlanks(text.substr(start, newline - start));
    start = newline + 1;
    ++number;
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with(kOpTypePrefix)) {
      std::string op_type(TrimBlanks(line.substr(kOpTypePrefix.size())));
      if (op_type.empty()) ConfigError(file, number, "'OpType::' names no op type");
      CheckOpType(op_type, file, number);
      list.op_types.insert(op_type);
    } else {
      list.node_names.insert(std::string(line));
    }
  }
  return list;
}

KeepDtypeList LoadKeepDtype(const std::string& path) { return ParseKeepDtype(ReadConfigFile(path), path); }

MixlistEdits ParseMixlist(std::string_view text, const std::string& file) {
  Json document = JsonReader(text, file).ReadDocument();
  if (document.kind != Json::Kind::kObject) ConfigError(file, document.line, "expected a JSON object");
  MixlistEdits edits;
  for (const auto& [key, value] : document.members) {
    if (key == "black-list") {
      ReadListEdits(value, key, file, edits.black_add, edits.black_remove);
    } else if (key == "white-list") {
      ReadListEdits(value, key, file, edits.white_add, edits.white_remove);
    } else {
      ConfigError(file, value.line, fmt::format("unknown key \"{}\"; valid keys: \"black-list\", \"white-list\"", key));
    }
  }
  return edits;
}

MixlistEdits LoadMixlist(const std::string& path) { return ParseMixlist(ReadConfigFile(path), path); }

}  // namespace ge::passes
