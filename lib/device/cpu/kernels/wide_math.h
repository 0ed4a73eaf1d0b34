// float32 exp, erf, erfc, tanh, sigmoid and GELU for the high_precision
// kernels, evaluated in double by code the compiler vectorizes (the libm
// functions are one scalar call per element). Each is accurate to better
// than 1e-12 relative (most to 3e-14) before the one rounding to float, so
// the float result is the correctly rounded one except when the exact value
// lies that close to a rounding tie, and then off by that much past half an
// ULP.
// Written like fast_math.h: no calls or data-dependent branches, range tests
// on bit patterns and selects through masks (an ordered double comparison
// may trap on NaN, which keeps GCC from turning a ?: into a vector blend),
// everything always inlined. tests/device/wide_math_test.cc checks the
// functions against libm in double over dense samples of their ranges.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace ge::device::cpu {

namespace wide_detail {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

[[gnu::always_inline]] inline double Select(bool cond, double a, double b) {
  const uint64_t mask = 0 - static_cast<uint64_t>(cond);
  return std::bit_cast<double>((std::bit_cast<uint64_t>(a) & mask) | (std::bit_cast<uint64_t>(b) & ~mask));
}

inline constexpr uint64_t kMagnitudeMask = 0x7FFF'FFFF'FFFF'FFFFull, kInfBits = 0x7FF0'0000'0000'0000ull;

[[gnu::always_inline]] inline double Abs(double x) {
  return std::bit_cast<double>(std::bit_cast<uint64_t>(x) & kMagnitudeMask);
}
[[gnu::always_inline]] inline double CopySign(double magnitude, double sign) {
  return std::bit_cast<double>((std::bit_cast<uint64_t>(magnitude) & kMagnitudeMask) |
                               (std::bit_cast<uint64_t>(sign) & ~kMagnitudeMask));
}
// A signed integer ordered like x (-0 just below +0); NaNs land beyond the
// infinities of their sign.
constexpr int64_t Key(double x) {
  const int64_t bits = std::bit_cast<int64_t>(x);
  return bits ^ ((bits >> 63) & 0x7FFF'FFFF'FFFF'FFFFll);
}
[[gnu::always_inline]] inline bool IsNaN(double x) { return (std::bit_cast<uint64_t>(x) & kMagnitudeMask) > kInfBits; }

// c[0] v^(N-1) + ... + c[N-1]. Unrolled: a loop nested in the kernel loop
// keeps it from vectorizing.
template <size_t N>
[[gnu::always_inline]] inline double Horner(const double (&c)[N], double v) {
  double r = c[0];
#pragma GCC unroll 32
  for (size_t i = 1; i < N; ++i) r = r * v + c[i];
  return r;
}

// erf(x) / x as a polynomial in x^2 on |x| <= 1.5: a degree-12 Chebyshev
// fit, relative error 3e-15 (4e-15 measured with double evaluation).
inline constexpr double kErfSmall[] = {3.4002037759025336e-11,  -9.070111061038018e-10, 1.3706607527542944e-08,
                                       -1.6113454325628176e-07, 1.6422253201228919e-06, -1.4921279135886372e-05,
                                       0.00012055002569578857,  -0.0008548310208914727, 0.0052239770743338545,
                                       -0.02686617053735424,    0.11283791669857676,    -0.3761263890313976,
                                       1.1283791670955097};
// erfc(x) e^(x^2) / t with t = 4 / (4 + x), as a polynomial in t on x >= 0
// (t in (0, 1]): a degree-18 Chebyshev fit, relative error 1e-14 (2e-14
// measured for erfc with double evaluation).
inline constexpr double kErfcScaled[] = {
    0.004308508433310996, -0.03652906964627003, 0.1335647181601255,   -0.27753075680924844, 0.37428838552962274,
    -0.3656830175891099,  0.26387389707602904,  -0.13520293593025728, 0.07587249380808696,  0.010270996079460444,
    0.04932178996543174,  0.06167105313411977,  0.08117442721984394,  0.09902600336417343,  0.1150148722008488,
    0.12782417796469034,  0.13663966526941246,  0.14104739588279486,  0.1410473958869448};
inline constexpr double kErfSmallLimit = 1.5;

}  // namespace wide_detail

// e^x. x = n ln2 + r with |r| <= ln2 / 2 (ln2 split in two so that n ln2_hi
// is exact); e^r by its degree-11 Taylor polynomial (truncation
// (ln2/2)^12 / 12! = 6e-15) and 2^n from exponent bits. Results below
// e^-708 are 0 and above e^709 inf: float's range ends long before.
[[gnu::always_inline]] inline double WideExp(double x) {
  using namespace wide_detail;
  constexpr double kLog2e = 1.4426950408889634, kLn2Hi = 6.93147180369123816490e-01,
                   kLn2Lo = 1.90821492927058770002e-10;
  // Adding 1.5 * 2^52 rounds to an integer held in the low mantissa bits.
  constexpr double kShifter = 0x1.8p52;
  const int64_t key = Key(x);
  const bool low = key < Key(-708.0);
  const bool high = key > Key(709.0);
  const double clamped = Select(low, -708.0, Select(high, 709.0, x));
  const double shifted = clamped * kLog2e + kShifter;
  const double n = shifted - kShifter;
  const double r = (clamped - n * kLn2Hi) - n * kLn2Lo;
  constexpr double kTaylor[] = {1.0 / 39916800, 1.0 / 3628800, 1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720,
                                1.0 / 120,      1.0 / 24,      1.0 / 6,      0.5,         1.0,        1.0};
  const double p = Horner(kTaylor, r);
  const int64_t exponent = std::bit_cast<int64_t>(shifted) - std::bit_cast<int64_t>(kShifter) + 1023;
  const double result = p * std::bit_cast<double>(exponent << 52);
  return Select(IsNaN(x), x, Select(high, kInf, Select(low, 0.0, result)));
}

// erfc a for a >= 0 (+inf gives 0): e^-a^2 t Q(t), relative to itself
// throughout, the far tail included.
[[gnu::always_inline]] inline double WideErfcOfMagnitude(double a) {
  using namespace wide_detail;
  const double t = 4.0 / (4.0 + a);
  return WideExp(-(a * a)) * t * Horner(kErfcScaled, t);
}

// erf x: x P(x^2) below |x| = 1.5 (where 1 - erfc |x| would cancel),
// 1 - erfc |x| above.
[[gnu::always_inline]] inline double WideErf(double x) {
  using namespace wide_detail;
  const double a = Abs(x);
  const double small = x * Horner(kErfSmall, x * x);
  const double large = CopySign(1.0 - WideErfcOfMagnitude(a), x);
  return Select(IsNaN(x), x, Select(Key(a) < Key(kErfSmallLimit), small, large));
}

// erfc x, relative to itself in the far tail (where 1 - erf x cancels).
[[gnu::always_inline]] inline double WideErfc(double x) {
  using namespace wide_detail;
  const double tail = WideErfcOfMagnitude(Abs(x));
  return Select(IsNaN(x), x, Select(Key(x) > 0, tail, 2.0 - tail));
}

// tanh x: its odd Taylor polynomial up to x^11 below |x| = 0.125 (truncation
// relative 6e-14), 1 - 2 / (e^2|x| + 1) above (cancels at most 4 bits there).
[[gnu::always_inline]] inline double WideTanh(double x) {
  using namespace wide_detail;
  const double a = Abs(x);
  constexpr double kTaylor[] = {-1382.0 / 155925, 62.0 / 2835, -17.0 / 315, 2.0 / 15, -1.0 / 3, 1.0};
  const double small = x * Horner(kTaylor, x * x);
  const double large = CopySign(1.0 - 2.0 / (WideExp(2.0 * a) + 1.0), x);
  return Select(Key(a) < Key(0.125), small, large);
}

// 1 / (1 + e^-x).
[[gnu::always_inline]] inline double WideSigmoid(double x) { return 1.0 / (1.0 + WideExp(-x)); }

// GELU, x Phi(x) = x/2 erfc(-x / sqrt 2): erfc keeps the negative tail's
// relative accuracy.
[[gnu::always_inline]] inline double WideGelu(double x) { return 0.5 * x * WideErfc(x * -0.70710678118654752440); }

}  // namespace ge::device::cpu
