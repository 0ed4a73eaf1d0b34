#include "graph/npy.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "graph/regular_file.h"

namespace ge {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct Descr {
  std::string_view code;  // numpy type code without the byte-order mark
  DataType dtype;
};

constexpr std::array<Descr, 12> kDescrs = {{
    {"f4", DataType::kFloat},  {"f8", DataType::kDouble}, {"f2", DataType::kFloat16},
    {"i1", DataType::kInt8},   {"i2", DataType::kInt16},  {"i4", DataType::kInt32},
    {"i8", DataType::kInt64},  {"u1", DataType::kUInt8},  {"u2", DataType::kUInt16},
    {"u4", DataType::kUInt32}, {"u8", DataType::kUInt64}, {"b1", DataType::kBool},
}};

// A header of the supported dtypes needs well under 1 KiB; numpy writes
// version 1 (at most 65535 bytes) unless a header is longer.
constexpr uint32_t kMaxHeaderBytes = 65535;

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument,
              EscapeForMessage(fmt::format("{}: not a readable .npy file: {}", path, what)));
}

DataType ParseDescr(const std::string& path, const std::string& descr) {
  if (descr.size() != 3) Fail(path, fmt::format("unsupported dtype '{}'", descr));
  char order = descr[0];
  if (order == '>') Fail(path, "big-endian data is not supported");
  if (order != '<' && order != '|' && order != '=') Fail(path, fmt::format("unsupported dtype '{}'", descr));
  for (const auto& entry : kDescrs) {
    if (entry.code == std::string_view(descr).substr(1)) return entry.dtype;
  }
  Fail(path, fmt::format("unsupported dtype '{}' (supported: float16/32/64, int8-64, uint8-64, bool)", descr));
}

std::string DescrOf(DataType dtype) {
  for (const auto& entry : kDescrs) {
    if (entry.dtype == dtype) return fmt::format("{}{}", DataTypeSize(dtype) == 1 ? '|' : '<', entry.code);
  }
  throw Error(ErrorCode::kUnsupported, fmt::format("cannot write dtype {} to .npy", DataTypeName(dtype)));
}

struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<int64_t> dims;
};

// The header is a Python dict literal as numpy writes it,
// "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3), }", padded with
// blanks. Parsed strictly: exactly these three keys, a shape that is a tuple
// of plain non-negative integers ("(3,)" for one dim, "()" for a scalar).
class HeaderParser {
 public:
  HeaderParser(const std::string& path, std::string_view text) : path_(path), text_(text) {}

  NpyHeader Parse() {
    NpyHeader header;
    std::set<std::string> seen;
    Expect('{');
    while (!Consume('}')) {
      const std::string key = ParseString("a quoted key");
      if (!seen.insert(key).second) Fail(path_, fmt::format("the header sets '{}' twice", key));
      Expect(':');
      if (key == "descr") {
        header.descr = ParseString("a quoted dtype");
      } else if (key == "fortran_order") {
        header.fortran_order = ParseBool();
      } else if (key == "shape") {
        header.dims = ParseDims();
      } else {
        Fail(path_, fmt::format("unknown header key '{}' (valid: 'descr', 'fortran_order', 'shape')", key));
      }
      if (!Consume(',')) {
        Expect('}');
        break;
      }
    }
    for (const char* key : {"descr", "fortran_order", "shape"}) {
      if (!seen.count(key)) Fail(path_, fmt::format("the header has no '{}'", key));
    }
    SkipBlanks();
    if (at_ != text_.size()) Fail(path_, fmt::format("unexpected '{}' after the header", text_.substr(at_, 16)));
    return header;
  }

 private:
  void SkipBlanks() {
    while (at_ < text_.size() &&
           (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) {
      ++at_;
    }
  }

  bool Consume(char c) {
    SkipBlanks();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }

  std::string Near() const { return at_ < text_.size() ? fmt::format("'{}'", text_.substr(at_, 16)) : "the end"; }

  void Expect(char c) {
    if (!Consume(c)) Fail(path_, fmt::format("malformed header: expected '{}' at {}", c, Near()));
  }

  std::string ParseString(const char* what) {
    SkipBlanks();
    const char quote = at_ < text_.size() ? text_[at_] : '\0';
    const size_t close = quote == '\'' || quote == '"' ? text_.find(quote, at_ + 1) : std::string_view::npos;
    if (close == std::string_view::npos) Fail(path_, fmt::format("malformed header: expected {} at {}", what, Near()));
    std::string value(text_.substr(at_ + 1, close - at_ - 1));
    at_ = close + 1;
    return value;
  }

  bool ParseBool() {
    SkipBlanks();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}}) {
      if (text_.substr(at_, std::strlen(word)) == word) {
        at_ += std::strlen(word);
        return value;
      }
    }
    Fail(path_, fmt::format("malformed header: 'fortran_order' is {}, not True or False", Near()));
  }

  std::vector<int64_t> ParseDims() {
    std::vector<int64_t> dims;
    Expect('(');
    bool trailing_comma = false;
    while (!Consume(')')) {
      dims.push_back(ParseDim(dims.size()));
      trailing_comma = Consume(',');
      if (!trailing_comma) {
        Expect(')');
        break;
      }
    }
    if (dims.size() == 1 && !trailing_comma) {
      Fail(path_,
           fmt::format("malformed header: shape ({}) is not a tuple; one dim is written ({},)", dims[0], dims[0]));
    }
    return dims;
  }

  int64_t ParseDim(size_t index) {
    SkipBlanks();
    const char* begin = text_.data() + at_;
    const char* end = text_.data() + text_.size();
    if (begin < end && *begin == '-') {
      const size_t digits = std::min(text_.find_first_not_of("0123456789", at_ + 1), text_.size());
      Fail(path_, fmt::format("dim {} of the shape is negative ({})", index, text_.substr(at_, digits - at_)));
    }
    int64_t dim = 0;
    const auto [stop, error] = std::from_chars(begin, end, dim);
    if (error == std::errc::result_out_of_range) {
      const size_t digits = std::min(text_.find_first_not_of("0123456789", at_), text_.size());
      Fail(path_, fmt::format("dim {} of the shape ({}) is too large", index, text_.substr(at_, digits - at_)));
    }
    if (error != std::errc() || (stop < end && (std::isalnum(static_cast<unsigned char>(*stop)) || *stop == '.'))) {
      Fail(path_,
           fmt::format("malformed header: dim {} of the shape is {}, not a non-negative integer", index, Near()));
    }
    at_ += static_cast<size_t>(stop - begin);
    return dim;
  }

  const std::string& path_;
  std::string_view text_;
  size_t at_ = 0;
};

// The data's size in bytes, or nullopt when it does not fit in 64 bits.
std::optional<uint64_t> DataBytes(const std::vector<int64_t>& dims, DataType dtype) {
  uint64_t bytes = DataTypeSize(dtype);
  for (int64_t dim : dims) {
    if (__builtin_mul_overflow(bytes, static_cast<uint64_t>(dim), &bytes)) return std::nullopt;
  }
  return bytes;
}

}  // namespace

Tensor ReadNpy(const std::string& path) {
  const RegularFile file = RegularFile::Open(path, ".npy file");
  // Magic (6 bytes), version (2), header length (2 in version 1, 4 after).
  uint8_t preamble[12] = {};
  const size_t preamble_bytes = std::min<uint64_t>(file.size(), sizeof(preamble));
  file.ReadAt(0, preamble, preamble_bytes);
  if (preamble_bytes < kMagicSize + 4 || std::memcmp(preamble, kMagic, kMagicSize) != 0) Fail(path, "bad magic");
  const uint8_t major = preamble[6];
  uint32_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = preamble[8] | (preamble[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (preamble_bytes < 12) Fail(path, "truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | preamble[8 + i];
    header_start = 12;
  } else {
    Fail(path, fmt::format("unsupported format version {}", major));
  }
  if (header_len > kMaxHeaderBytes) {
    Fail(path,
         fmt::format("the header has {} bytes, more than the {} a .npy header may have", header_len, kMaxHeaderBytes));
  }
  if (file.size() < header_start + header_len) Fail(path, "truncated header");
  std::string text(header_len, '\0');
  file.ReadAt(header_start, text.data(), header_len);
  const NpyHeader header = HeaderParser(path, text).Parse();
  const DataType dtype = ParseDescr(path, header.descr);
  if (header.fortran_order) Fail(path, "Fortran-ordered arrays are not supported");
  const Shape shape(header.dims);
  const std::optional<uint64_t> nbytes = DataBytes(header.dims, dtype);
  if (!nbytes) {
    Fail(path, fmt::format("shape {} of {} has more than 2^64 bytes", shape.ToString(), DataTypeName(dtype)));
  }
  const uint64_t data_start = header_start + header_len;
  const uint64_t present = file.size() - data_start;
  const std::string expected =
      fmt::format("{} bytes for shape {} of {}", *nbytes, shape.ToString(), DataTypeName(dtype));
  if (present < *nbytes) Fail(path, fmt::format("data is truncated: {}, {} present", expected, present));
  if (present > *nbytes) {
    Fail(path, fmt::format("{} bytes after the data ({}, {} present)", present - *nbytes, expected, present));
  }
  Tensor tensor = [&] {
    try {
      return Tensor(dtype, shape);
    } catch (const std::bad_alloc&) {
      throw Error(ErrorCode::kIoError,
                  EscapeForMessage(fmt::format("{}: not enough memory for its {} bytes of data", path, *nbytes)));
    }
  }();
  file.ReadAt(data_start, tensor.data(), *nbytes);
  return tensor;
}

void WriteNpy(const std::string& path, const Tensor& tensor) {
  // numpy's tuple syntax: "()", "(3,)", "(1, 3)".
  std::string shape = fmt::format("{}", fmt::join(tensor.shape().dims(), ", "));
  if (tensor.shape().rank() == 1) shape += ",";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}", DescrOf(tensor.dtype()), shape);
  // Pad so that the data starts on a 64-byte boundary; the header ends with '\n'.
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');

  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(ErrorCode::kIoError, fmt::format("{}: cannot open for writing", path));
    out.write(kMagic, kMagicSize);
    const char version[2] = {1, 0};
    out.write(version, 2);
    const char len[2] = {static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
    out.write(len, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(tensor.data()), static_cast<std::streamsize>(tensor.nbytes()));
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw Error(ErrorCode::kIoError, fmt::format("{}: write failed", path));
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw Error(ErrorCode::kIoError, fmt::format("{}: cannot move into place: {}", path, ec.message()));
  }
}

}  // namespace ge
