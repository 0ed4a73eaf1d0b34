// ARQ, the weight calibrator: min/max per tensor or per output channel, no search.
#pragma once

#include <cstdint>
#include <vector>

#include "quant/quant_types.h"

namespace ge::quant {

// Factors for the weight tensor `w` of shape `dims`. `channel_axis` is the
// output-channel axis (0 for a Conv2D filter [Co, Ci, kh, kw], 1 for a MatMul
// x2 [K, N]); it is ignored when params.channel_wise is false.
// Symmetric: m = max or min, whichever is larger in magnitude (sign kept),
// scale = m / (2^(b-1) - 1) if m > 0 else m / -2^(b-1), offset 0.
// Asymmetric: max >= 0, min <= 0, scale = (max - min) / (2^b - 1),
// offset = rint(-min / scale) - 2^(b-1).
// An all-zero channel gets scale 1 (offset as the formula gives), so that it
// quantizes to zeros. NaN/Inf weights and scales whose inverse overflows float are errors.
WeightQuantParams ArqCalibrate(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                               const ArqParams& params);

// q = clamp(rint(w / scale) + offset, -2^(b-1), 2^(b-1) - 1) per element, with
// the scale/offset of its channel (or the single per-tensor entry).
std::vector<int8_t> ArqQuantize(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                                const WeightQuantParams& params);

// The weight as the integer layer sees it: (q - offset) * scale per element.
std::vector<float> ArqRestore(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                              const WeightQuantParams& params);

// The weight's quantization noise relative to its power:
// sum (w - (q - offset) * scale)^2 / sum w^2 (0 for an all-zero weight).
double ArqNoiseRatio(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                     const WeightQuantParams& params);

}  // namespace ge::quant
