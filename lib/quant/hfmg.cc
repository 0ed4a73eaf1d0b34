#include "quant/hfmg.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "ge/error.h"
#include "quant/minmax_scale.h"

namespace ge::quant {
namespace {

double Cube(double x) { return x * x * x; }

// Integral of (x - c)^2 over [a, b).
double SquaredDistanceIntegral(double a, double b, double c) { return (Cube(b - c) - Cube(a - c)) / 3.0; }

// The rounding grid of one candidate range: `levels` evenly spaced values
// lo, lo + step, ..., hi. Values below lo or above hi clip to it.
struct Grid {
  double lo = 0.0;
  double hi = 0.0;
  double step = 0.0;  // (hi - lo) / (levels - 1)

  // Integral of the squared rounding error over [a, b) for a unit density.
  double Error(double a, double b) const {
    double error = 0.0;
    if (a < lo) {  // the part below the range clips to lo
      error += SquaredDistanceIntegral(a, std::min(b, lo), lo);
      a = lo;
    }
    if (b > hi) {
      error += SquaredDistanceIntegral(std::max(a, hi), b, hi);
      b = hi;
    }
    if (a >= b || step <= 0.0) return error;
    // Level k takes [lo + (k - 1/2) step, lo + (k + 1/2) step).
    const double first = std::nearbyint((a - lo) / step);
    const double last = std::nearbyint((b - lo) / step);
    if (first == last) return error + SquaredDistanceIntegral(a, b, lo + first * step);
    error += SquaredDistanceIntegral(a, lo + (first + 0.5) * step, lo + first * step);
    error += SquaredDistanceIntegral(lo + (last - 0.5) * step, b, lo + last * step);
    // Each whole cell in between: the integral of x^2 over [-step/2, step/2).
    return error + (last - first - 1.0) * Cube(step) / 12.0;
  }
};

}  // namespace

double HfmgRangeError(const std::vector<double>& counts, double min, double max, int64_t first, int64_t last,
                      int bits) {
  const auto bins = static_cast<int64_t>(counts.size());
  const double width = (max - min) / bins;
  if (!(width > 0.0)) return 0.0;  // a single-valued histogram sits exactly on the grid
  Grid grid;
  grid.lo = min + first * width;
  grid.hi = min + (last + 1) * width;
  grid.step = (grid.hi - grid.lo) / (std::ldexp(1.0, bits) - 1.0);
  double error = 0.0;
  for (int64_t i = 0; i < bins; ++i) {
    if (counts[i] == 0.0) continue;
    const double begin = min + i * width;
    error += counts[i] / width * grid.Error(begin, begin + width);
  }
  return error;
}

HfmgObserver::HfmgObserver(const HfmgParams& params) : params_(params) {
  if (params.num_of_bins <= 0) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("HFMG: num_of_bins {} must be positive", params.num_of_bins));
  }
  counts_.assign(params.num_of_bins, 0.0);
}

void HfmgObserver::Observe(std::span<const float> batch) {
  if (batch.empty()) return;
  float batch_min = std::numeric_limits<float>::infinity();
  float batch_max = -std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!std::isfinite(batch[i])) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("HFMG: calibration value {} is {}", i, batch[i]));
    }
    batch_min = std::min(batch_min, batch[i]);
    batch_max = std::max(batch_max, batch[i]);
  }
  if (empty_) {
    min_ = batch_min;
    max_ = batch_max;
    empty_ = false;
  } else if (batch_min < min_ || batch_max > max_) {
    Widen(std::min(min_, batch_min), std::max(max_, batch_max));
  }
  Add(batch);
}

void HfmgObserver::Widen(float new_min, float new_max) {
  const auto bins = static_cast<int64_t>(counts_.size());
  const double old_width = (static_cast<double>(max_) - min_) / bins;
  const double new_width = (static_cast<double>(new_max) - new_min) / bins;
  std::vector<double> widened(bins, 0.0);
  for (int64_t i = 0; i < bins; ++i) {
    if (counts_[i] == 0.0) continue;
    const double begin = min_ + i * old_width;
    const double end = begin + old_width;
    if (old_width == 0.0) {  // a single-valued range: all counts sit at min_
      widened[std::min<int64_t>(bins - 1, static_cast<int64_t>((begin - new_min) / new_width))] += counts_[i];
      continue;
    }
    // Spread the count over the new bins it overlaps, in proportion to the overlap.
    // (Start one bin early: the division may round up past the bin that holds `begin`.)
    auto j = std::clamp<int64_t>(static_cast<int64_t>((begin - new_min) / new_width) - 1, 0, bins - 1);
    for (; j < bins; ++j) {
      const double bin_begin = new_min + j * new_width;
      const double bin_end = j == bins - 1 ? std::max(end, bin_begin + new_width) : bin_begin + new_width;
      const double overlap = std::min(end, bin_end) - std::max(begin, bin_begin);
      if (overlap > 0.0) widened[j] += counts_[i] * overlap / old_width;
      if (bin_end >= end) break;
    }
  }
  counts_ = std::move(widened);
  min_ = new_min;
  max_ = new_max;
}

void HfmgObserver::Add(std::span<const float> batch) {
  const auto bins = static_cast<int64_t>(counts_.size());
  const double range = static_cast<double>(max_) - min_;
  for (const float x : batch) {
    const auto bin = range > 0.0 ? static_cast<int64_t>((x - static_cast<double>(min_)) / range * bins) : 0;
    counts_[std::clamp<int64_t>(bin, 0, bins - 1)] += 1.0;
  }
}

ActivationQuantParams HfmgObserver::Finish() const {
  if (empty_) throw Error(ErrorCode::kInvalidArgument, "HFMG: no calibration data was observed");
  const auto bins = static_cast<int64_t>(counts_.size());
  const int bits = QuantBits(params_.dst_type);
  const double width = (static_cast<double>(max_) - min_) / bins;

  int64_t best_first = 0;
  int64_t best_last = bins - 1;
  if (width > 0.0) {
    std::vector<double> cumulative(bins);
    double total = 0.0;
    for (int64_t i = 0; i < bins; ++i) cumulative[i] = total += counts_[i];
    const auto mass_before = [&](int64_t bin) { return bin == 0 ? 0.0 : cumulative[bin - 1]; };
    const auto mass_after = [&](int64_t bin) { return total - cumulative[bin]; };
    const double step = total / kStepDivisor;
    const auto min_bins = std::max<int64_t>(1, static_cast<int64_t>(bins * kMinBinFraction));
    double best_error = HfmgRangeError(counts_, min_, max_, 0, bins - 1, bits);
    int64_t first = 0;
    int64_t last = bins - 1;
    double left_target = 0.0;
    double right_target = 0.0;
    while (last - first + 1 > min_bins) {
      // Where each end would move to clip `step` more counts than it already does.
      int64_t next_first = first;
      while (next_first < last && mass_before(next_first) < left_target + step) ++next_first;
      int64_t next_last = last;
      while (next_last > first && mass_after(next_last) < right_target + step) --next_last;
      // Trim the sparser end: it gives up the most range for the same clipped mass.
      if (next_first - first > last - next_last) {
        left_target += step;
        first = next_first;
      } else {
        right_target += step;
        if (next_last == last) continue;
        last = next_last;
      }
      const double error = HfmgRangeError(counts_, min_, max_, first, last, bits);
      if (error < best_error) {
        best_error = error;
        best_first = first;
        best_last = last;
      }
    }
  }

  const float lo = static_cast<float>(min_ + best_first * width);
  const float hi = static_cast<float>(min_ + (best_last + 1) * width);
  ActivationQuantParams result;
  result.dst_type = params_.dst_type;
  result.scale = MinMaxScale(lo, hi, bits, params_.asymmetric);
  if (!ScaleIsUsable(result.scale)) result.scale = 1.0f;
  result.offset = MinMaxOffset(lo, result.scale, bits, params_.asymmetric);
  return result;
}

}  // namespace ge::quant
