// ReadNpy on hostile files: the header is parsed strictly (a tuple of plain
// non-negative integers), the data must be exactly what the header describes,
// and every error is one line naming the file.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <string>

#include "ge/error.h"
#include "graph/npy.h"
#include "test_support.h"

namespace {

// A version 1.0 .npy file with `header` verbatim (padded as numpy pads it)
// followed by `data_bytes` zero bytes.
std::string WriteNpyText(const std::string& name, std::string header, size_t data_bytes) {
  header.append(63 - (10 + header.size()) % 64, ' ');
  header.push_back('\n');
  const std::string path = (ge::test::TempDir("npy_reader") / name).string();
  std::ofstream out(path, std::ios::binary);
  out << "\x93NUMPY" << '\x01' << '\x00' << static_cast<char>(header.size() & 0xff)
      << static_cast<char>(header.size() >> 8) << header << std::string(data_bytes, '\0');
  return path;
}

std::string WithShape(const std::string& shape) {
  return "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape + ", }";
}

// The message ReadNpy fails with; the code must be kInvalidArgument.
std::string ReadError(const std::string& path) {
  const auto [code, message] = ge::test::ErrorOf([&] { ge::ReadNpy(path); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  return message;
}

}  // namespace

TEST_CASE("npy reader: well-formed headers read, in any key order and spacing", "[npy]") {
  CHECK(ge::ReadNpy(WriteNpyText("a.npy", WithShape("(2, 3)"), 24)).shape() == ge::Shape({2, 3}));
  CHECK(ge::ReadNpy(WriteNpyText("b.npy", WithShape("(5,)"), 20)).shape() == ge::Shape({5}));
  CHECK(ge::ReadNpy(WriteNpyText("c.npy", WithShape("()"), 4)).shape() == ge::Shape(std::vector<int64_t>{}));
  CHECK(ge::ReadNpy(WriteNpyText("d.npy", WithShape("(0, 3)"), 0)).nbytes() == 0);
  CHECK(ge::ReadNpy(WriteNpyText("e.npy", "{\"shape\":(1,2),\"fortran_order\":False,\"descr\":\"<f4\"}", 8)).shape() ==
        ge::Shape({1, 2}));
}

TEST_CASE("npy reader: negative, non-integer and overflowing dims are refused", "[npy]") {
  const std::string negative = WriteNpyText("negative.npy", WithShape("(1, -3)"), 0);
  CHECK(ReadError(negative) == negative + ": not a readable .npy file: dim 1 of the shape is negative (-3)");
  CHECK_THAT(ReadError(WriteNpyText("float.npy", WithShape("(1.5,)"), 0)),
             Catch::Contains("malformed header: dim 0 of the shape is '1.5,)"));
  CHECK_THAT(ReadError(WriteNpyText("plus.npy", WithShape("(+2,)"), 0)),
             Catch::Contains("dim 0 of the shape is '+2,)"));
  CHECK_THAT(ReadError(WriteNpyText("hex.npy", WithShape("(0x10,)"), 0)),
             Catch::Contains("dim 0 of the shape is '0x10,)"));
  CHECK_THAT(ReadError(WriteNpyText("huge_dim.npy", WithShape("(99999999999999999999,)"), 0)),
             Catch::Contains("dim 0 of the shape (99999999999999999999) is too large"));
  CHECK_THAT(ReadError(WriteNpyText("overflow.npy", WithShape("(4294967296, 4294967296)"), 0)),
             Catch::Contains("shape [4294967296,4294967296] of float32 has more than 2^64 bytes"));
}

TEST_CASE("npy reader: a shape that is not a well-formed tuple is refused", "[npy]") {
  CHECK_THAT(ReadError(WriteNpyText("int.npy", WithShape("(3)"), 12)),
             Catch::Contains("shape (3) is not a tuple; one dim is written (3,)"));
  CHECK_THAT(ReadError(WriteNpyText("commas.npy", WithShape("(1,,2)"), 8)), Catch::Contains("dim 1 of the shape is"));
  CHECK_THAT(ReadError(WriteNpyText("spaces.npy", WithShape("(1 2)"), 8)), Catch::Contains("expected ')' at '2)"));
  CHECK_THAT(ReadError(WriteNpyText("list.npy", WithShape("[1, 2]"), 8)), Catch::Contains("expected '(' at '[1, 2]"));
}

TEST_CASE("npy reader: keys must be exactly descr, fortran_order and shape", "[npy]") {
  CHECK_THAT(ReadError(WriteNpyText("missing.npy", "{'descr': '<f4', 'shape': (1,), }", 4)),
             Catch::Contains("the header has no 'fortran_order'"));
  CHECK_THAT(ReadError(WriteNpyText("twice.npy", "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False}", 4)),
             Catch::Contains("the header sets 'descr' twice"));
  CHECK_THAT(ReadError(WriteNpyText("unknown.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
                                    4)),
             Catch::Contains("unknown header key 'x'"));
  CHECK_THAT(ReadError(WriteNpyText("bool.npy", "{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", 4)),
             Catch::Contains("'fortran_order' is '0"));
  CHECK_THAT(ReadError(WriteNpyText("after.npy", WithShape("(1,)") + " junk", 4)),
             Catch::Contains("unexpected 'junk"));
}

TEST_CASE("npy reader: the data must be exactly the bytes the header describes", "[npy]") {
  const std::string trailing = WriteNpyText("trailing.npy", WithShape("(2, 3)"), 24 + 5);
  CHECK(ReadError(trailing) ==
        trailing + ": not a readable .npy file: 5 bytes after the data (24 bytes for shape [2,3] of float32, 29 "
                   "present)");
  const std::string truncated = WriteNpyText("truncated.npy", WithShape("(2, 3)"), 23);
  CHECK(ReadError(truncated) ==
        truncated + ": not a readable .npy file: data is truncated: 24 bytes for shape [2,3] of float32, 23 present");
}

TEST_CASE("npy reader: header text echoed in errors is escaped", "[npy]") {
  const std::string message = ReadError(WriteNpyText("binary.npy", WithShape("(1,\r\x1b)"), 4));
  CHECK_THAT(message, Catch::Contains("dim 1 of the shape is '\\x1B)"));
  CHECK(message.find('\x1b') == std::string::npos);
}
