// float16 and bfloat16 elements as their uint16_t bits, to and from float:
// the one implementation the importers, passes, schemas and kernels share.
// Both directions round to nearest even and keep a NaN a (quiet) NaN.
//
// Without F16C (not in the baseline x86-64 ISA the project builds for) each
// _Float16 conversion is a libgcc call that also keeps the loop around it
// from vectorizing; these are branch-free (selects through masks) and vectorize.
#pragma once

#include <bit>
#include <cstdint>

namespace ge {

namespace half_float_detail {
inline uint32_t SelectBits(bool cond, uint32_t a, uint32_t b) {
  const uint32_t mask = 0u - static_cast<uint32_t>(cond);
  return (a & mask) | (b & ~mask);
}
}  // namespace half_float_detail

// bfloat16 is the upper half of a float32: widening is exact.
inline float BFloat16BitsToFloat(uint16_t bits) { return std::bit_cast<float>(uint32_t{bits} << 16); }

inline uint16_t FloatToBFloat16Bits(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);  // NaN: keep it quiet
  bits += 0x7FFF + ((bits >> 16) & 1);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

inline float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t shifted = uint32_t{h & 0x7FFFu} << 13;  // exponent and mantissa in float position
  // The exponent bias differs by 127 - 15 = 112: scaling by 2^112 fixes
  // normal and subnormal halves alike. Inf and NaN get the all-ones exponent.
  const float scaled = std::bit_cast<float>(shifted) * 0x1p112f;
  return std::bit_cast<float>(sign | half_float_detail::SelectBits(shifted >= 0x0F800000u, shifted | 0x7F800000u,
                                                                   std::bit_cast<uint32_t>(scaled)));
}

inline uint16_t FloatToHalfBits(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (bits >> 16) & 0x8000u;
  const uint32_t x = bits & 0x7FFFFFFFu;
  // Normal halves (|f| >= 2^-14): round the 13 dropped mantissa bits to
  // nearest even, rebias; a carry may reach inf, larger values clamp to it.
  const uint32_t rounded = ((x + 0x0FFFu + ((x >> 13) & 1u)) >> 13) - (112u << 10);
  const uint32_t normal = rounded < 0x7C00u ? rounded : 0x7C00u;
  // Subnormal halves: adding 0.5 leaves the value's multiple of 2^-24
  // (rounded to nearest even by the float addition) in the low bits.
  const uint32_t subnormal = std::bit_cast<uint32_t>(std::bit_cast<float>(x) + 0.5f) - 0x3F000000u;
  using half_float_detail::SelectBits;
  const uint32_t h = SelectBits(x > 0x7F800000u, 0x7E00u | ((x >> 13) & 0x3FFu),  // NaN stays a (quiet) NaN
                                SelectBits(x < 0x38800000u, subnormal, normal));
  return static_cast<uint16_t>(sign | h);
}

}  // namespace ge
