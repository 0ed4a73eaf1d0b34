// EscapeForMessage: text quoted from files stays one printable line.
#include <catch2/catch.hpp>

#include <string>

#include "graph/escape_for_message.h"

using ge::EscapeForMessage;

TEST_CASE("escape for message: control bytes become \\r, \\n, \\t or \\xNN", "[escape]") {
  CHECK(EscapeForMessage("a\r\nb\tc") == "a\\r\\nb\\tc");
  CHECK(EscapeForMessage("\x1b[2J") == "\\x1B[2J");
  CHECK(EscapeForMessage(std::string("nul\0byte", 8)) == "nul\\x00byte");
  CHECK(EscapeForMessage("del\x7f") == "del\\x7F");
  CHECK(EscapeForMessage("plain text: 'x' = 1, \"y\" (z) \\ ok") == "plain text: 'x' = 1, \"y\" (z) \\ ok");
}

TEST_CASE("escape for message: valid UTF-8 is kept, invalid bytes and C1 controls are escaped", "[escape]") {
  CHECK(EscapeForMessage("caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");
  CHECK(EscapeForMessage("\xff") == "\\xFF");
  CHECK(EscapeForMessage("cut \xe2\x9c") == "cut \\xE2\\x9C");         // a sequence the text ends inside
  CHECK(EscapeForMessage("\xc0\xaf") == "\\xC0\\xAF");                 // an overlong '/'
  CHECK(EscapeForMessage("\xed\xa0\x80") == "\\xED\\xA0\\x80");        // a UTF-16 surrogate
  CHECK(EscapeForMessage("\xf4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(EscapeForMessage("\xc2\x9b") == "\\xC2\\x9B");                 // U+009B, a terminal's CSI
  CHECK(EscapeForMessage("\xc2\xa0") == "\xc2\xa0");                   // U+00A0 is printable
}

TEST_CASE("escape for message: escaping escaped text changes nothing", "[escape]") {
  const std::string once = EscapeForMessage("a\rb\xff\x1b");
  CHECK(EscapeForMessage(once) == once);
}
