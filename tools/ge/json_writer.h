// A minimal streaming JSON writer for the CLI's --json output.
//
// Commas and string escaping are handled here so that commands only state the
// structure. Non-finite numbers become null (JSON has no NaN or Infinity).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ge::cli {

class JsonWriter {
 public:
  JsonWriter& BeginObject();
  JsonWriter& EndObject();
  JsonWriter& BeginArray();
  JsonWriter& EndArray();
  // The key of the next member of the enclosing object.
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Number(double value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value);
  JsonWriter& Null();

  // The document written so far.
  const std::string& str() const { return out_; }

 private:
  // Writes the separating comma when a value follows a sibling.
  void BeforeValue();
  void Open(char bracket);
  void Close(char bracket);

  std::string out_;
  std::vector<bool> container_has_items_;  // one entry per open object/array
  bool after_key_ = false;
};

}  // namespace ge::cli
