#include "graph/escape_for_message.h"

#include <cstdint>

#include <fmt/core.h>

namespace ge {
namespace {

// The length of the valid UTF-8 sequence of two or more bytes starting at
// `text[at]`, or 0 when there is none (overlong forms and surrogates are invalid).
size_t Utf8SequenceLength(std::string_view text, size_t at) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(at);
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // the valid range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size() || byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  }
  return length;
}

void AppendHex(std::string& out, std::string_view bytes) {
  for (char c : bytes) out += fmt::format("\\x{:02X}", static_cast<uint8_t>(c));
}

}  // namespace

std::string EscapeForMessage(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    const auto byte = static_cast<uint8_t>(c);
    if (byte >= 0x20 && byte < 0x7F) {
      out += c;
      ++i;
    } else if (c == '\r' || c == '\n' || c == '\t') {
      out += c == '\r' ? "\\r" : c == '\n' ? "\\n" : "\\t";
      ++i;
    } else if (const size_t length = byte >= 0x80 ? Utf8SequenceLength(text, i) : 0; length > 0) {
      // U+0080..U+009F (C2 80..C2 9F) are controls too: a terminal may act on them.
      const bool c1_control = byte == 0xC2 && static_cast<uint8_t>(text[i + 1]) <= 0x9F;
      if (c1_control) {
        AppendHex(out, text.substr(i, length));
      } else {
        out.append(text.substr(i, length));
      }
      i += length;
    } else {
      AppendHex(out, text.substr(i, 1));
      ++i;
    }
  }
  return out;
}

}  // namespace ge
