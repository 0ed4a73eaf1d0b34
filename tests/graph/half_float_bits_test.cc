// graph/half_float_bits.h's bfloat16 conversions against a float64 oracle
// (the float16 ones are checked against the compiler's _Float16 conversions
// in tests/device/half_conversion_test.cc).
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>

#include <catch2/catch.hpp>

#include "graph/half_float_bits.h"

namespace {

// The bfloat16 nearest to a finite f, ties to the even bit pattern, by
// comparing the two candidates' distances in float64.
uint16_t NearestBFloat16(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t down = static_cast<uint16_t>(bits >> 16);
  const uint16_t up = static_cast<uint16_t>(down + 1);
  const double below = std::abs(static_cast<double>(f) - ge::BFloat16BitsToFloat(down));
  const double above = std::abs(static_cast<double>(ge::BFloat16BitsToFloat(up)) - f);
  if (below != above) return below < above ? down : up;
  return (down & 1u) == 0 ? down : up;
}

}  // namespace

TEST_CASE("BFloat16BitsToFloat widens every bfloat16 value exactly", "[graph][half]") {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = ge::BFloat16BitsToFloat(static_cast<uint16_t>(b));
    CHECK(std::bit_cast<uint32_t>(f) == b << 16);
  }
}

TEST_CASE("FloatToBFloat16Bits rounds to nearest even and keeps NaN a NaN", "[graph][half]") {
  std::mt19937 random(7);
  std::uniform_int_distribution<uint32_t> any_bits;
  int mismatches = 0;
  for (int i = 0; i < 200000; ++i) {
    // Random patterns, and exact halfway points between two bfloat16 values.
    uint32_t bits = any_bits(random);
    if (i % 2 == 1) bits = (bits & 0xFFFF0000u) | 0x8000u;
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f) || (bits & 0x7F800000u) == 0x7F800000u) continue;
    const float largest = ge::BFloat16BitsToFloat(0x7F7F);
    if (std::abs(f) > largest) continue;  // rounds to infinity: checked below
    mismatches += ge::FloatToBFloat16Bits(f) != NearestBFloat16(f);
  }
  CHECK(mismatches == 0);
  CHECK(ge::FloatToBFloat16Bits(INFINITY) == 0x7F80);
  CHECK(ge::FloatToBFloat16Bits(-INFINITY) == 0xFF80);
  const uint16_t nan = ge::FloatToBFloat16Bits(std::bit_cast<float>(0x7F800001u));  // a NaN whose top half is inf
  CHECK(std::isnan(ge::BFloat16BitsToFloat(nan)));
}
