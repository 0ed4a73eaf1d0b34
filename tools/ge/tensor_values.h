// Element access by runtime dtype, for the CLI's random inputs and printed outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ge/tensor.h"

namespace ge::cli {

// Calls visit(T{}) with the C++ type of `dtype` and returns true, or returns
// false for types without a plain C++ counterpart (float16, bfloat16, string, complex).
template <typename Visitor>
bool VisitPlainType(DataType dtype, Visitor&& visit) {
  switch (dtype) {
    case DataType::kFloat: visit(float{}); return true;
    case DataType::kDouble: visit(double{}); return true;
    case DataType::kInt8: visit(int8_t{}); return true;
    case DataType::kInt16: visit(int16_t{}); return true;
    case DataType::kInt32: visit(int32_t{}); return true;
    case DataType::kInt64: visit(int64_t{}); return true;
    case DataType::kUInt8: visit(uint8_t{}); return true;
    case DataType::kUInt16: visit(uint16_t{}); return true;
    case DataType::kUInt32: visit(uint32_t{}); return true;
    case DataType::kUInt64: visit(uint64_t{}); return true;
    case DataType::kBool: visit(bool{}); return true;
    default: return false;
  }
}

// The first `count` elements as text ("0.1234, 0.5, ..."), or a note when the dtype cannot be shown.
std::string FormatLeadingValues(const Tensor& tensor, size_t count);

}  // namespace ge::cli
