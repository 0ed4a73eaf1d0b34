#include "graph/onnx/onnx_scalar.h"

#include <cstring>
#include <limits>

namespace ge::onnx_import {
namespace {

uint32_t FloatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// IEEE binary16 bits of `value`, rounding to nearest even.
uint16_t Float16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const int32_t exponent = static_cast<int32_t>((bits >> 23) & 0xffu);
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));  // inf, nan
  const int32_t half_exponent = exponent - 127 + 15;
  if (half_exponent >= 31) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  uint32_t shift = 13;
  uint32_t result = 0;
  if (half_exponent <= 0) {  // subnormal half (or zero)
    if (half_exponent < -10) return static_cast<uint16_t>(sign);
    mantissa |= 0x800000u;
    shift = static_cast<uint32_t>(14 - half_exponent);
  } else {
    result = static_cast<uint32_t>(half_exponent) << 10;
  }
  result |= mantissa >> shift;
  const uint32_t remainder = mantissa & ((1u << shift) - 1);
  const uint32_t halfway = 1u << (shift - 1);
  // A carry out of the mantissa correctly bumps the exponent.
  if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
  return static_cast<uint16_t>(sign | result);
}

// bfloat16 bits of a finite `value`, rounding to nearest even.
uint16_t BFloat16Bits(float value) {
  const uint32_t bits = FloatBits(value);
  return static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

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
  if (dtype == DataType::kFloat16) return Scalar(dtype, Float16Bits(static_cast<float>(value)));
  if (dtype == DataType::kBFloat16) return Scalar(dtype, BFloat16Bits(static_cast<float>(value)));
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
