// Element counts and byte sizes formed with overflow checks: a model file can
// claim any dims, and a product that wraps (a dim of 2^62) once made a
// tensor's size 0 and let kernels write past their buffers.
#pragma once

#include <cstdint>
#include <optional>

#include "ge/shape.h"
#include "ge/types.h"

namespace ge {

// The product of a static shape's dims; nullopt when it does not fit int64.
std::optional<int64_t> CheckedNumElements(const Shape& static_shape);

// Elements times the dtype's size; nullopt when it does not fit int64.
std::optional<int64_t> CheckedByteSize(const Shape& static_shape, DataType dtype);

}  // namespace ge
