#include "graph/byte_size.h"

#include <algorithm>

namespace ge {

std::optional<int64_t> CheckedNumElements(const Shape& static_shape) {
  const auto& dims = static_shape.dims();
  // A zero anywhere makes the product 0 even when the dims before it overflow.
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  int64_t count = 1;
  for (int64_t dim : static_shape.dims()) {
    if (__builtin_mul_overflow(count, dim, &count)) return std::nullopt;
  }
  return count;
}

std::optional<int64_t> CheckedByteSize(const Shape& static_shape, DataType dtype) {
  const std::optional<int64_t> count = CheckedNumElements(static_shape);
  int64_t bytes = 0;
  if (!count || __builtin_mul_overflow(*count, static_cast<int64_t>(DataTypeSize(dtype)), &bytes)) return std::nullopt;
  return bytes;
}

}  // namespace ge
