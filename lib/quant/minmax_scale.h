// The min/max scale and offset formulas that ARQ, HFMG and the MinMax observer
// share (AMCT's ARQ formulas; bits is the quantized width).
#pragma once

#include <cstdint>

#include "quant/quant_types.h"

namespace ge::quant {

// Symmetric: m = max or min, whichever is larger in magnitude (max on a tie),
// scale = m / (2^(bits-1) - 1) if m > 0, m / -2^(bits-1) if m < 0, 0 if m == 0.
// Asymmetric: max clamped >= 0, min <= 0, scale = (max - min) / (2^bits - 1).
float MinMaxScale(float min, float max, int bits, bool asymmetric);

// 0 when symmetric; rint(-min' / scale) - 2^(bits-1) with min' = min(min, 0) when asymmetric.
int32_t MinMaxOffset(float min, float scale, int bits, bool asymmetric);

// A scale is usable when it is positive, finite and its inverse is finite
// (the quantize op multiplies by 1/scale).
bool ScaleIsUsable(float scale);

// Bits of an activation dst_type: 8 or 16.
int QuantBits(QuantDType type);

}  // namespace ge::quant
