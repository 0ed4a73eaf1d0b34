#include "ge/types.h"

#include <array>
#include <utility>

#include "ge/error.h"

namespace ge {
namespace {

struct TypeEntry {
  DataType type;
  size_t size;
  std::string_view name;
};

constexpr std::array kTypes = {
    TypeEntry{DataType::kFloat, 4, "float32"},    TypeEntry{DataType::kFloat16, 2, "float16"},
    TypeEntry{DataType::kInt8, 1, "int8"},        TypeEntry{DataType::kInt32, 4, "int32"},
    TypeEntry{DataType::kUInt8, 1, "uint8"},      TypeEntry{DataType::kInt16, 2, "int16"},
    TypeEntry{DataType::kUInt16, 2, "uint16"},    TypeEntry{DataType::kUInt32, 4, "uint32"},
    TypeEntry{DataType::kInt64, 8, "int64"},      TypeEntry{DataType::kUInt64, 8, "uint64"},
    TypeEntry{DataType::kDouble, 8, "float64"},   TypeEntry{DataType::kBool, 1, "bool"},
    TypeEntry{DataType::kString, 0, "string"},    TypeEntry{DataType::kComplex64, 8, "complex64"},
    TypeEntry{DataType::kComplex128, 16, "complex128"}, TypeEntry{DataType::kBFloat16, 2, "bfloat16"},
    TypeEntry{DataType::kSequence, 0, "sequence"},      TypeEntry{DataType::kOptional, 0, "optional"},
};

// Other spellings accepted by ParseDataType (ACL's and numpy's).
constexpr std::array<std::pair<std::string_view, DataType>, 5> kAliases = {{
    {"float", DataType::kFloat},
    {"double", DataType::kDouble},
    {"half", DataType::kFloat16},
    {"bf16", DataType::kBFloat16},
    {"fp16", DataType::kFloat16},
}};

const TypeEntry* FindEntry(DataType type) {
  for (const auto& entry : kTypes) {
    if (entry.type == type) return &entry;
  }
  return nullptr;
}

}  // namespace

size_t DataTypeSize(DataType type) {
  const TypeEntry* entry = FindEntry(type);
  return entry ? entry->size : 0;
}

std::string_view DataTypeName(DataType type) {
  const TypeEntry* entry = FindEntry(type);
  return entry ? entry->name : "undefined";
}

std::optional<DataType> ParseDataType(std::string_view name) {
  for (const auto& entry : kTypes) {
    if (entry.name == name && !IsContainer(entry.type)) return entry.type;  // options name element types
  }
  for (const auto& [alias, type] : kAliases) {
    if (alias == name) return type;
  }
  return std::nullopt;
}

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFloat || type == DataType::kFloat16 || type == DataType::kBFloat16 ||
         type == DataType::kDouble;
}

bool IsInteger(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kUInt32:
    case DataType::kUInt64:
      return true;
    default:
      return false;
  }
}

std::string_view FormatName(Format format) {
  switch (format) {
    case Format::kNCHW: return "NCHW";
    case Format::kNHWC: return "NHWC";
    case Format::kND: return "ND";
    case Format::kNC1HWC0: return "NC1HWC0";
    case Format::kFractalZ: return "FRACTAL_Z";
    case Format::kNC1HWC0_C04: return "NC1HWC0_C04";
    case Format::kHWCN: return "HWCN";
    case Format::kNDHWC: return "NDHWC";
    case Format::kFractalNZ: return "FRACTAL_NZ";
    case Format::kNCDHW: return "NCDHW";
    case Format::kNDC1HWC0: return "NDC1HWC0";
    case Format::kFractalZ3D: return "FRACTAL_Z_3D";
    case Format::kUndefined: break;
  }
  return "UNDEFINED";
}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kInvalidModel: return "invalid model";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kIoError: return "I/O error";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown error";
}

bool IsContainer(DataType type) { return type == DataType::kSequence || type == DataType::kOptional; }

}  // namespace ge
