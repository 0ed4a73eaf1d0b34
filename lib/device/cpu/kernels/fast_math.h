// Fast float32 approximations for the high_performance kernels: short
// polynomials and Newton steps on bit-level seeds, written without calls or
// data-dependent branches so the kernel loops vectorize (the libm functions
// of the high_precision kernels are scalar calls). Range tests compare bit
// patterns as integers: an ordered float comparison may trap on NaN, and
// under the default -ftrapping-math GCC then keeps the branch instead of a
// vector blend; selects go through Select for the same reason. Everything is
// always inlined: a call in a loop stops vectorization. Each function
// documents its relative error over its range;
// tests/device/impl_mode_accuracy_test.cc measures them and docs/precision.md
// lists the results.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace ge::device::cpu {

namespace fast_detail {

inline constexpr float kInf = std::numeric_limits<float>::infinity();
inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// x rounded to the nearest integer (|x| < 2^22): adding 1.5 * 2^23 pushes the
// fraction bits out of the mantissa in the current (nearest) rounding mode.
[[gnu::always_inline]] inline float RoundToInt(float x) {
  constexpr float kShifter = 12582912.0f;
  return (x + kShifter) - kShifter;
}

// cond ? a : b through bit masks: both sides are computed, so GCC sees no
// branch (a float ?: may be kept as one when a side may trap).
[[gnu::always_inline]] inline float Select(bool cond, float a, float b) {
  const uint32_t mask = 0u - static_cast<uint32_t>(cond);
  return std::bit_cast<float>((std::bit_cast<uint32_t>(a) & mask) | (std::bit_cast<uint32_t>(b) & ~mask));
}

[[gnu::always_inline]] inline float Abs(float x) {
  return std::bit_cast<float>(std::bit_cast<uint32_t>(x) & 0x7FFFFFFFu);
}

inline constexpr uint32_t kMagnitudeMask = 0x7FFFFFFFu, kInfBits = 0x7F800000u;

// A signed integer ordered like the float x (-0 just below +0); NaNs land
// beyond the infinities of their sign.
constexpr int32_t Key(float x) {
  const int32_t bits = std::bit_cast<int32_t>(x);
  return bits ^ ((bits >> 31) & 0x7FFFFFFF);
}
[[gnu::always_inline]] inline bool IsNaN(float x) { return (std::bit_cast<uint32_t>(x) & kMagnitudeMask) > kInfBits; }
[[gnu::always_inline]] inline bool IsZero(float x) { return (std::bit_cast<uint32_t>(x) & kMagnitudeMask) == 0; }
// x > 0, +inf or a positive NaN.
[[gnu::always_inline]] inline bool IsPositive(float x) { return std::bit_cast<int32_t>(x) > 0; }
// +inf or a positive NaN, for an x known to be positive.
[[gnu::always_inline]] inline bool IsInfOrNaN(float x) {
  return (std::bit_cast<uint32_t>(x) & kMagnitudeMask) >= kInfBits;
}

// |magnitude| with the sign of `sign`.
[[gnu::always_inline]] inline float CopySign(float magnitude, float sign) {
  return std::bit_cast<float>((std::bit_cast<uint32_t>(magnitude) & 0x7FFFFFFFu) |
                              (std::bit_cast<uint32_t>(sign) & 0x80000000u));
}

}  // namespace fast_detail

// e^x. x = n ln2 + r with |r| <= ln2 / 2; e^r by its degree-5 Taylor
// polynomial (truncation <= (ln2/2)^6 / 720 = 2.4e-6) and 2^n from exponent
// bits. Results below 2^-125 flush to zero; x > 88.72 gives inf.
[[gnu::always_inline]] inline float FastExp(float x) {
  using namespace fast_detail;
  constexpr float kLog2e = 1.44269504f, kLn2 = 0.693147182f;
  const int32_t key = Key(x);
  const float clamped = Select(key < Key(-87.0f), -87.0f, Select(key > Key(88.72284f), 88.72284f, x));
  const float n = RoundToInt(clamped * kLog2e);
  const float r = clamped - n * kLn2;
  const float p =
      1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6 + r * (1.0f / 24 + r * (1.0f / 120)))));
  // 2^(n-1) * 2 keeps the exponent field in range for n = 128.
  const float scale = std::bit_cast<float>((static_cast<int32_t>(n) + 126) << 23);
  const float result = p * scale * 2.0f;
  return Select(IsNaN(x), x, Select(key > Key(88.72284f), kInf, Select(key < Key(-87.0f), 0.0f, result)));
}

// ln x for normal x. x = 2^e m with m in [sqrt(1/2), sqrt(2)); with
// s = (m-1)/(m+1), ln m = 2 (s + s^3/3 + s^5/5) (|s| <= 0.172: truncation
// 2 s^7 / 7, relative to ln m below 4e-6). Zero gives -inf, negatives NaN,
// inf inf; subnormal inputs are not supported.
[[gnu::always_inline]] inline float FastLog(float x) {
  using namespace fast_detail;
  const int32_t bits = std::bit_cast<int32_t>(x);
  const int32_t e = (bits - 0x3F3504F3) >> 23;  // 0x3F3504F3: sqrt(1/2)
  const float m = std::bit_cast<float>(bits - (e << 23));
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  const float ln_m = 2.0f * s * (1.0f + s2 * (1.0f / 3 + s2 * (1.0f / 5)));
  const float result = static_cast<float>(e) * 0.693147182f + ln_m;
  return Select(IsPositive(x), Select(IsInfOrNaN(x), x, result), Select(IsZero(x), -kInf, kNaN));
}

// 1/x: an exponent-flipping seed (relative error about 5%) and two Newton
// steps y <- y (2 - x y), each squaring the error: about 7e-6 (measured).
// Zero gives inf and |x| >= 2^126 gives zero (both with x's sign).
[[gnu::always_inline]] inline float FastReciprocal(float x) {
  using namespace fast_detail;
  const float a = Abs(x);
  float y = std::bit_cast<float>(0x7EF311C3 - std::bit_cast<int32_t>(a));
  y = y * (2.0f - a * y);
  y = y * (2.0f - a * y);
  const float magnitude = Select(IsZero(a), kInf, Select(Key(a) >= Key(0x1p126f), 0.0f, y));
  return Select(IsNaN(x), x, CopySign(magnitude, x));
}

// 1/sqrt(x): the 0x5F3759DF seed (relative error <= 3.5%) and two Newton
// steps y <- y (1.5 - x/2 y^2): <= 5e-6. Zero gives inf, negatives NaN.
[[gnu::always_inline]] inline float FastRsqrt(float x) {
  using namespace fast_detail;
  float y = std::bit_cast<float>(0x5F3759DF - (std::bit_cast<int32_t>(x) >> 1));
  const float half = 0.5f * x;
  y = y * (1.5f - half * y * y);
  y = y * (1.5f - half * y * y);
  return Select(IsPositive(x), Select(IsInfOrNaN(x), Select(IsNaN(x), x, 0.0f), y), Select(IsZero(x), kInf, kNaN));
}

// sqrt(x) as x * rsqrt(x) (the error of FastRsqrt).
[[gnu::always_inline]] inline float FastSqrt(float x) {
  using namespace fast_detail;
  const float result = x * FastRsqrt(x);
  return Select(IsPositive(x), Select(IsInfOrNaN(x), x, result), Select(IsZero(x), x, kNaN));
}

// tanh x: its odd Taylor polynomial up to x^7 below |x| = 0.35 (truncation
// <= 62/2835 |x|^9, relative 5e-6), 1 - 2 / (e^2|x| + 1) above.
[[gnu::always_inline]] inline float FastTanh(float x) {
  using namespace fast_detail;
  const float a = Abs(x);
  const float x2 = x * x;
  const float small = x * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315))));
  const float large = CopySign(1.0f - 2.0f / (FastExp(2.0f * a) + 1.0f), x);
  return Select(Key(a) < Key(0.35f), small, large);
}

// 1 / (1 + e^-x): the error of FastExp.
[[gnu::always_inline]] inline float FastSigmoid(float x) { return 1.0f / (1.0f + FastExp(-x)); }

// erf x: its odd Taylor polynomial up to x^9 below |x| = 0.5 (truncation
// <= |x|^11 / 1320 * 2/sqrt(pi), relative 4e-7); above, Abramowitz and
// Stegun 7.1.26, 1 - t P(t) e^-x^2 with t = 1/(1 + p|x|) (absolute error
// <= 1.5e-7).
[[gnu::always_inline]] inline float FastErf(float x) {
  using namespace fast_detail;
  const float a = Abs(x);
  const float x2 = x * x;
  constexpr float kTwoOverSqrtPi = 1.12837917f;
  const float small =
      kTwoOverSqrtPi * x * (1.0f + x2 * (-1.0f / 3 + x2 * (1.0f / 10 + x2 * (-1.0f / 42 + x2 * (1.0f / 216)))));
  const float t = 1.0f / (1.0f + 0.3275911f * a);
  const float poly =
      t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  const float large = CopySign(1.0f - poly * FastExp(-x2), x);
  return Select(Key(a) < Key(0.5f), small, large);
}

// GELU in its tanh form, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// written as x * sigmoid(2u) so the negative tail does not cancel. The tanh
// form itself differs from the exact x Phi(x) by up to 4.7e-4 absolute (and
// by a large relative amount far in the negative tail, where GELU -> 0).
[[gnu::always_inline]] inline float FastGelu(float x) {
  constexpr float kTwoSqrtTwoOverPi = 1.59576912f;  // 2 sqrt(2/pi)
  const float u2 = kTwoSqrtTwoOverPi * (x + 0.044715f * x * x * x);
  return x / (1.0f + FastExp(-u2));
}

// a^b as e^(b ln|a|), with the signs and special cases of pow: a negative base
// needs an integral exponent (its parity gives the sign), else NaN; b = 0
// gives 1. Error: FastExp's plus FastLog's times |b ln a|.
[[gnu::always_inline]] inline float FastPow(float a, float b) {
  using namespace fast_detail;
  const float magnitude = FastExp(b * FastLog(Abs(a)));
  // |b| >= 2^23 is an even integer; below, b's integer part tells.
  const bool small = Key(Abs(b)) < Key(0x1p23f);
  const int32_t whole = static_cast<int32_t>(Select(small, b, 0.0f));
  // Bitwise rather than short-circuit logic: no branches in the loop.
  const bool integral = !small | (std::bit_cast<uint32_t>(static_cast<float>(whole)) == std::bit_cast<uint32_t>(b));
  const bool odd = (whole & 1) != 0;
  const bool negative = !IsPositive(a) & !IsZero(a);
  const float signed_result = Select(negative, Select(integral, Select(odd, -magnitude, magnitude), kNaN), magnitude);
  return Select(IsZero(b), 1.0f, signed_result);
}

}  // namespace ge::device::cpu
