#include "graph/onnx/onnx_scalar.h"

#include <limits>

#include "graph/half_float_bits.h"

namespace ge::onnx_import {
namespace {

template <typename T>
Tensor Scalar(DataType dtype, T value) {
  Tensor tensor(dtype, Shape{});
  *tensor.data_as<T>() = value;
  return tensor;
}

// Calls fn(T{}) with the C++ type stored for `dtype`, for the plain numeric dtypes.
template <typename Fn>
std::optional<Tensor> WithPlainType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat: return fn(float{});
    case DataType::kDouble: return fn(double{});
    case DataType::kInt8: return fn(int8_t{});
    case DataType::kInt16: return fn(int16_t{});
    case DataType::kInt32: return fn(int32_t{});
    case DataType::kInt64: return fn(int64_t{});
    case DataType::kUInt8: return fn(uint8_t{});
    case DataType::kUInt16: return fn(uint16_t{});
    case DataType::kUInt32: return fn(uint32_t{});
    case DataType::kUInt64: return fn(uint64_t{});
    default: return std::nullopt;
  }
}

}  // namespace

std::optional<Tensor> MakeScalar(DataType dtype, double value) {
  if (dtype == DataType::kFloat16) return Scalar(dtype, FloatToHalfBits(static_cast<float>(value)));
  if (dtype == DataType::kBFloat16) return Scalar(dtype, FloatToBFloat16Bits(static_cast<float>(value)));
  return WithPlainType(dtype, [&](auto zero) { return Scalar(dtype, static_cast<decltype(zero)>(value)); });
}

std::optional<Tensor> MakeLimitScalar(DataType dtype, bool largest) {
  const uint16_t sign = largest ? 0 : 0x8000;
  if (dtype == DataType::kFloat16) return Scalar<uint16_t>(dtype, sign | 0x7bffu);   // 65504
  if (dtype == DataType::kBFloat16) return Scalar<uint16_t>(dtype, sign | 0x7f7fu);  // 3.39e38
  return WithPlainType(dtype, [&](auto zero) {
    using T = decltype(zero);
    return Scalar(dtype, largest ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest());
  });
}

}  // namespace ge::onnx_import
