// The bit-level float16 <-> float32 conversions of element_types.h against
// the compiler's own _Float16 conversions: every half value, and float32
// values around every rounding boundary of the half range.
#include <bit>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "device/cpu/kernels/element_types.h"

using ge::device::cpu::FloatToHalf;
using ge::device::cpu::HalfToFloat;

namespace {

uint16_t Bits(_Float16 h) {
  uint16_t b;
  std::memcpy(&b, &h, sizeof b);
  return b;
}
uint32_t Bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}
float FloatOf(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("HalfToFloat widens every float16 value exactly", "[device][half]") {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const uint16_t bits = static_cast<uint16_t>(b);
    _Float16 h;
    std::memcpy(&h, &bits, sizeof h);
    const float expected = static_cast<float>(h);
    INFO("half bits " << b);
    if (expected != expected) {
      CHECK(HalfToFloat(h) != HalfToFloat(h));
    } else {
      CHECK(Bits(HalfToFloat(h)) == Bits(expected));
    }
  }
}

TEST_CASE("FloatToHalf rounds to nearest even like a _Float16 conversion", "[device][half]") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<uint32_t> any_bits;
  std::vector<float> values;
  // Every half value, the midpoints between neighbours and their float neighbours.
  for (uint32_t b = 0; b < 0x7C00; ++b) {
    const float lo = HalfToFloat(std::bit_cast<_Float16>(static_cast<uint16_t>(b)));
    const float hi = HalfToFloat(std::bit_cast<_Float16>(static_cast<uint16_t>(b + 1)));
    const float mid = lo + (hi - lo) / 2;
    for (float v : {lo, mid, FloatOf(Bits(mid) - 1), FloatOf(Bits(mid) + 1)}) {
      values.push_back(v);
      values.push_back(-v);
    }
  }
  for (int i = 0; i < 200000; ++i) values.push_back(FloatOf(any_bits(rng)));
  for (float v : {65504.0f, 65519.0f, 65520.0f, 1e30f, 0x1p-25f, 0x1p-24f, 0x1.8p-24f}) values.push_back(v);
  for (float v : values) {
    INFO("float " << v << " bits " << Bits(v));
    if (v != v) {
      const _Float16 h = FloatToHalf(v);
      CHECK(h != h);
    } else {
      CHECK(Bits(FloatToHalf(v)) == Bits(static_cast<_Float16>(v)));
    }
  }
}
