// Conversions of C arguments into C++ values, with the checks that make a bad
// argument an error instead of a crash.
#include <fmt/core.h>

#include "c_api_internal.h"

namespace ge::capi {

void Require(const void* pointer, const char* argument) {
  if (pointer == nullptr) throw Error(ErrorCode::kInvalidArgument, fmt::format("argument '{}' is NULL", argument));
}

std::string RequireString(const char* text, const char* argument) {
  Require(text, argument);
  return text;
}

Options ToOptions(const char* const* keys, const char* const* values, size_t count) {
  Options options;
  if (count == 0) return options;
  Require(keys, "option_keys");
  Require(values, "option_values");
  for (size_t i = 0; i < count; ++i) {
    if (keys[i] == nullptr || values[i] == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("option {} has a NULL key or value", i));
    }
    options[keys[i]] = values[i];
  }
  return options;
}

Shape ToShape(const int64_t* dims, size_t rank) {
  if (rank > 0) Require(dims, "dims");
  return Shape(std::vector<int64_t>(dims, dims + rank));
}

DataType ToDataType(ge_dtype dtype) {
  switch (dtype) {
    case GE_DTYPE_FLOAT32: case GE_DTYPE_FLOAT16: case GE_DTYPE_INT8: case GE_DTYPE_INT32:
    case GE_DTYPE_UINT8: case GE_DTYPE_INT16: case GE_DTYPE_UINT16: case GE_DTYPE_UINT32:
    case GE_DTYPE_INT64: case GE_DTYPE_UINT64: case GE_DTYPE_FLOAT64: case GE_DTYPE_BOOL:
    case GE_DTYPE_BFLOAT16:
    case GE_DTYPE_SEQUENCE: case GE_DTYPE_OPTIONAL:
      return static_cast<DataType>(dtype);  // same numbering (ge/types.h)
    case GE_DTYPE_UNDEFINED:
    case GE_DTYPE_FORCE_INT32_:
      break;
  }
  throw Error(ErrorCode::kInvalidArgument, fmt::format("dtype {} is not a ge_dtype value", static_cast<int>(dtype)));
}

std::vector<Tensor> ToTensors(ge_tensor* const* tensors, size_t count, const char* argument) {
  std::vector<Tensor> result;
  if (count > 0) Require(tensors, argument);
  for (size_t i = 0; i < count; ++i) {
    if (tensors[i] == nullptr) throw Error(ErrorCode::kInvalidArgument, fmt::format("{}[{}] is NULL", argument, i));
    result.push_back(FromC(tensors[i])->tensor);
  }
  return result;
}

}  // namespace ge::capi
