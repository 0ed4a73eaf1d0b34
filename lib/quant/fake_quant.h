// An activation value through quantization and back, as an integer layer
// sees it: clamp(rint(x / scale) + offset, the dst_type's range), then
// (q - offset) * scale.
#pragma once

#include <algorithm>
#include <cmath>

#include "quant/quant_types.h"

namespace ge::quant {

inline double FakeQuantize(double x, const ActivationQuantParams& a) {
  const int bits = a.dst_type == QuantDType::kInt16 ? 16 : 8;
  const double q_min = -std::ldexp(1.0, bits - 1), q_max = std::ldexp(1.0, bits - 1) - 1;
  const double q = std::clamp(std::nearbyint(x / a.scale) + a.offset, q_min, q_max);
  return (q - a.offset) * a.scale;
}

}  // namespace ge::quant
