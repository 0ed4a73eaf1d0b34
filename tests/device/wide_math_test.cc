// wide_math.h (the vectorizable double-evaluated functions behind the
// high_precision float32 Exp, Erf, Tanh, Sigmoid, Gelu and SoftmaxV2)
// against libm in double: dense samples of each range, the breakpoints
// between their pieces, and the special values.
#include "device/cpu/kernels/wide_math.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

using namespace ge::device::cpu;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Largest relative error of fn against reference at the floats nearest
// `steps` even steps over [lo, hi] and at the given breakpoints and their
// float neighbours (the functions serve float inputs, whose squares are
// exact in double); references below `floor` in magnitude are skipped.
double MaxRelativeError(const std::function<double(double)>& fn, const std::function<double(double)>& reference,
                        double lo, double hi, int steps, std::vector<double> points = {}, double floor = 1e-300) {
  for (int i = 0; i <= steps; ++i) points.push_back(lo + (hi - lo) * i / steps);
  double worst = 0;
  for (double p : points) {
    const float f = static_cast<float>(p);
    for (double x : {static_cast<double>(f), static_cast<double>(std::nextafter(f, -1e30f)),
                     static_cast<double>(std::nextafter(f, 1e30f))}) {
      const double expected = reference(x);
      if (std::abs(expected) < floor) continue;
      worst = std::max(worst, std::abs(fn(x) - expected) / std::abs(expected));
    }
  }
  return worst;
}

double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

}  // namespace

TEST_CASE("WideExp is within 1e-13 of exp over float's range and saturates beyond", "[device][wide_math]") {
  CHECK(MaxRelativeError(WideExp, [](double x) { return std::exp(x); }, -110, 90, 400001, {0, 1e-30, -1e-30}) < 1e-13);
  CHECK(WideExp(0) == 1);
  CHECK(WideExp(-kInf) == 0);
  CHECK(WideExp(-800) == 0);
  CHECK(WideExp(kInf) == kInf);
  CHECK(WideExp(800) == kInf);
  CHECK(std::isnan(WideExp(kNaN)));
  // float's limits: e^88.72 is the largest finite float, e^-103.9 the smallest subnormal.
  CHECK(std::isinf(static_cast<float>(WideExp(88.8))));
  CHECK(static_cast<float>(WideExp(88.7)) == static_cast<float>(std::exp(88.7)));
  CHECK(static_cast<float>(WideExp(-103.0)) == static_cast<float>(std::exp(-103.0)));
}

TEST_CASE("WideErf and WideErfc are within 1e-13 of libm, erf on both sides of its 1.5 breakpoint",
          "[device][wide_math]") {
  const std::vector<double> breaks = {1.5, -1.5, 0, 1e-20, -1e-20, 4, -4};
  CHECK(MaxRelativeError(
            WideErf, [](double x) { return std::erf(x); }, -6, 6, 200001, breaks) < 1e-13);
  // erfc relative to itself deep into the tail (GELU's negative side needs it).
  CHECK(MaxRelativeError(
            WideErfc, [](double x) { return std::erfc(x); }, -6, 26, 200001, breaks) < 1e-13);
  CHECK(WideErf(kInf) == 1);
  CHECK(WideErf(-kInf) == -1);
  CHECK(std::signbit(WideErf(-0.0)));
  CHECK(WideErfc(kInf) == 0);
  CHECK(WideErfc(-kInf) == 2);
  CHECK(std::isnan(WideErf(kNaN)));
  CHECK(std::isnan(WideErfc(kNaN)));
}

TEST_CASE("WideTanh, WideSigmoid and WideGelu are within 1e-12 of their libm forms", "[device][wide_math]") {
  const std::vector<double> breaks = {0.125, -0.125, 1e-30, -1e-30, 2.1213203435596424, -2.1213203435596424};
  CHECK(MaxRelativeError(
            WideTanh, [](double x) { return std::tanh(x); }, -20, 20, 200001, breaks) < 1e-13);
  CHECK(MaxRelativeError(WideSigmoid, Sigmoid, -100, 40, 200001, breaks) < 1e-13);
  // GELU's negative tail down to float's smallest subnormal, relative to
  // itself; the rounding of x / sqrt 2 (in both) grows with its square.
  CHECK(MaxRelativeError(WideGelu, Gelu, -14, 10, 200001, breaks, 1e-46) < 1e-12);
  CHECK(WideTanh(kInf) == 1);
  CHECK(WideTanh(-kInf) == -1);
  CHECK(std::signbit(WideTanh(-0.0)));
  CHECK(WideSigmoid(-kInf) == 0);
  CHECK(WideSigmoid(kInf) == 1);
  CHECK(WideGelu(kInf) == kInf);
  CHECK(WideGelu(0) == 0);
  for (auto fn : {WideTanh, WideSigmoid, WideGelu}) CHECK(std::isnan(fn(kNaN)));
}
