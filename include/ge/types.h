// Element types and tensor formats of the ge IR.
//
// The numbering follows ACL's aclDataType / aclFormat, so handing a tensor to the
// Ascend runtime is a cast, not a lookup table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ge/export.h"

namespace ge {

enum class DataType : int32_t {
  kUndefined = -1,
  kFloat = 0,
  kFloat16 = 1,
  kInt8 = 2,
  kInt32 = 3,
  kUInt8 = 4,
  kInt16 = 6,
  kUInt16 = 7,
  kUInt32 = 8,
  kInt64 = 9,
  kUInt64 = 10,
  kDouble = 11,
  kBool = 12,
  kString = 13,
  kComplex64 = 16,
  kComplex128 = 17,
  kBFloat16 = 27,
  // Values that hold other values (ONNX's sequence and optional types); a
  // Tensor of these kinds holds its elements (ge/tensor.h). Not element types.
  kSequence = 100,
  kOptional = 101,
};

enum class Format : int32_t {
  kUndefined = -1,
  kNCHW = 0,
  kNHWC = 1,
  kND = 2,
  kNC1HWC0 = 3,
  kFractalZ = 4,
  kNC1HWC0_C04 = 12,
  kHWCN = 16,
  kNDHWC = 27,
  kFractalNZ = 29,
  kNCDHW = 30,
  kNDC1HWC0 = 32,
  kFractalZ3D = 33,
};

// Bytes per element; 0 for kUndefined and kString (strings are not plain data).
GE_API size_t DataTypeSize(DataType type);

// Lower-case name as used in options, error messages and `ge info` ("float32", "int64", ...).
GE_API std::string_view DataTypeName(DataType type);

// Inverse of DataTypeName; also accepts the ACL spellings ("float", "float16", "bf16").
GE_API std::optional<DataType> ParseDataType(std::string_view name);

GE_API bool IsFloatingPoint(DataType type);
GE_API bool IsInteger(DataType type);  // signed or unsigned, not bool
GE_API bool IsContainer(DataType type);  // kSequence or kOptional

GE_API std::string_view FormatName(Format format);

}  // namespace ge
