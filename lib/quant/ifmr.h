// IFMR, the default activation calibrator: percentile anchors, then a search
// over clip ratios that minimizes the mean squared quantization error.
#pragma once

#include <cstdint>
#include <span>

#include "quant/quant_types.h"

namespace ge::quant {

// Factors for all calibration data of one tensor (every batch, concatenated).
// 1. max0 = the k-th largest value, k = N - floor(max_percentile * N) (at least 1),
//    clamped >= 0; min0 likewise from the bottom with min_percentile, clamped <= 0.
// 2. Candidate ratios r_i = start + i * step, i = 0, 1, ... while r_i <= end.
// 3. Symmetric: A = max0 or min0, the larger in magnitude; c = r_i * |A|,
//    s = c / (2^(b-1) - 1) (c / 2^(b-1) if A < 0); error of rint(clip(x, -c, c) / s) * s.
// 4. Asymmetric: only the top moves, hi = r_i * max0, lo = min0,
//    s = (hi - lo) / (2^b - 1); error of rint(clip(x, lo, hi) / s) * s;
//    offset = -rint(lo / s) - 2^(b-1).
// The first candidate with the least mean squared error wins. All-zero data
// gives scale 1. b is 8 or 16 (dst_type). Empty data and NaN/Inf are errors.
// Throws kInvalidArgument unless the params are in range: 0 < start < end,
// 0 < step, at most kMaxIfmrCandidates ratios, percentiles in (0.5, 1].
ActivationQuantParams IfmrCalibrate(std::span<const float> data, const IfmrParams& params);

// The most clip ratios one search tries. Each costs a pass over all the
// calibration data; AMCT's default (0.7 to 1.3 by 0.01) tries 61.
inline constexpr int64_t kMaxIfmrCandidates = 10000;

// The number of ratios of step 2 above, floor((end - start) / step) + 1, as a
// double so that a tiny step cannot overflow it; NaN for NaN params.
double IfmrCandidateCount(const IfmrParams& params);

}  // namespace ge::quant
