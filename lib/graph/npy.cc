#include "graph/npy.h"

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"

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

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: not a readable .npy file: {}", path, what));
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

std::string Field(const std::string& path, const std::string& header, const std::string& key,
                  const std::string& pattern) {
  std::smatch match;
  std::regex re("'" + key + "'\\s*:\\s*" + pattern);
  if (!std::regex_search(header, match, re)) Fail(path, fmt::format("header has no valid '{}' field", key));
  return match[1].str();
}

Shape ParseShape(const std::string& text) {
  std::vector<int64_t> dims;
  std::regex number("\\d+");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    dims.push_back(std::stoll(it->str()));
  }
  return Shape(std::move(dims));
}

}  // namespace

Tensor ReadNpy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(std::filesystem::exists(path) ? ErrorCode::kIoError : ErrorCode::kNotFound,
                fmt::format("{}: cannot open file", path));
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < kMagicSize + 4 || bytes.compare(0, kMagicSize, kMagic, kMagicSize) != 0) {
    Fail(path, "bad magic");
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) Fail(path, "truncated header");
    for (int i = 3; i >= 0; --i) header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + i]);
    header_start = 12;
  } else {
    Fail(path, fmt::format("unsupported format version {}", major));
  }
  if (bytes.size() < header_start + header_len) Fail(path, "truncated header");
  std::string header = bytes.substr(header_start, header_len);
  DataType dtype = ParseDescr(path, Field(path, header, "descr", "'([^']*)'"));
  if (Field(path, header, "fortran_order", "(True|False)") == "True") {
    Fail(path, "Fortran-ordered arrays are not supported");
  }
  Shape shape = ParseShape(Field(path, header, "shape", "\\(([^)]*)\\)"));
  Tensor tensor(dtype, shape);
  size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < tensor.nbytes()) {
    Fail(path, fmt::format("data is truncated: {} bytes for shape {} of {}, {} present", tensor.nbytes(),
                           shape.ToString(), DataTypeName(dtype), bytes.size() - data_start));
  }
  if (tensor.nbytes()) std::memcpy(tensor.data(), bytes.data() + data_start, tensor.nbytes());
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
