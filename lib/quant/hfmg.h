// HFMG, the histogram activation calibrator: a fixed-size histogram over the
// observed range, then an L2 search over trimmed ranges. Memory does not grow
// with the calibration data, unlike IFMR.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "quant/quant_types.h"

namespace ge::quant {

// The L2 error HFMG scores a candidate with: the squared distance from every
// value of the histogram (`counts` evenly over [min, max], uniform within each
// bin) to the nearest of 2^bits evenly spaced levels spanning bins
// [first, last]; values outside that span clip to its nearest end.
double HfmgRangeError(const std::vector<double>& counts, double min, double max, int64_t first, int64_t last,
                      int bits);

class HfmgObserver {
 public:
  // params.num_of_bins must be positive (the config allows 1024..8192).
  explicit HfmgObserver(const HfmgParams& params);

  // Adds one batch. The first batch sets the histogram range to its [min, max];
  // a later batch outside it widens the range and re-bins the old counts,
  // assuming they are uniform within each bin. NaN/Inf are errors.
  void Observe(std::span<const float> batch);

  // Candidate ranges trim the histogram by total/kStepDivisor counts per step
  // from whichever end that costs fewer counts per bin (the end whose trim
  // moves more bins), until kMinBinFraction of the bins remain. Each is scored
  // by HfmgRangeError; the best (the full range on a tie) gives scale/offset
  // by the min/max formulas (0 included; symmetric or asymmetric); a
  // degenerate scale becomes 1.
  // Fails when nothing was observed.
  ActivationQuantParams Finish() const;

  // The histogram so far (tests, diagnostics).
  const std::vector<double>& counts() const { return counts_; }
  float min() const { return min_; }
  float max() const { return max_; }

  // AMCT's STEP_DIVISOR and MIN_BIN_RATIO values are not published; these are
  // ours: steps of 1e-5 of the mass, and at least an eighth of the bins kept.
  static constexpr double kStepDivisor = 1e5;
  static constexpr double kMinBinFraction = 1.0 / 8;

 private:
  void Widen(float new_min, float new_max);
  void Add(std::span<const float> batch);

  HfmgParams params_;
  std::vector<double> counts_;
  float min_ = 0.0f;
  float max_ = 0.0f;
  bool empty_ = true;
};

}  // namespace ge::quant
