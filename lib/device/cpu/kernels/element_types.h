// Storage vs. arithmetic types of the elementwise kernels: float16 and
// bfloat16 elements are loaded into float, computed on, and rounded back to
// nearest even when stored; every other type computes in itself, so the
// float32/float64/integer loops stay plain (and vectorizable).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

template <typename T>
inline constexpr bool kIsHalf = std::is_same_v<T, _Float16> || std::is_same_v<T, BFloat16>;

template <typename T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

inline float BFloat16ToFloat(BFloat16 v) {
  const uint32_t bits = uint32_t{v.bits} << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline BFloat16 FloatToBFloat16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if (std::isnan(f)) return {static_cast<uint16_t>((bits >> 16) | 0x40)};  // keep it a (quiet) NaN
  bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest even
  return {static_cast<uint16_t>(bits >> 16)};
}

template <typename T>
inline Compute<T> Load(T v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(v);
  } else {
    return static_cast<Compute<T>>(v);
  }
}

// Stores a computed value as T. Bool results (comparisons) and values already
// of type T pass through.
template <typename T, typename C>
inline T Store(C v) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    return FloatToBFloat16(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

// The dtype lists of the elementwise kernels.
using HalfFloatTypes = TypeList<float, double, _Float16, BFloat16>;
using IntegerTypes = TypeList<int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>;
using NumericTypes =
    TypeList<float, double, _Float16, BFloat16, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t, int64_t, uint64_t>;
using BoolTypes = TypeList<bool>;

}  // namespace ge::device::cpu
