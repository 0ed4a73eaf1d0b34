#include "quant/minmax_scale.h"

#include <algorithm>
#include <cmath>

namespace ge::quant {

float MinMaxScale(float min, float max, int bits, bool asymmetric) {
  const float half_range = std::ldexp(1.0f, bits - 1);  // 2^(b-1)
  if (asymmetric) {
    const float hi = std::max(max, 0.0f);
    const float lo = std::min(min, 0.0f);
    return (hi - lo) / (2.0f * half_range - 1.0f);
  }
  const float m = std::fabs(max) >= std::fabs(min) ? max : min;
  if (m > 0.0f) return m / (half_range - 1.0f);
  if (m < 0.0f) return m / -half_range;
  return 0.0f;
}

int32_t MinMaxOffset(float min, float scale, int bits, bool asymmetric) {
  if (!asymmetric) return 0;
  const float lo = std::min(min, 0.0f);
  return static_cast<int32_t>(std::nearbyint(-lo / scale)) - (int32_t{1} << (bits - 1));
}

bool ScaleIsUsable(float scale) { return scale > 0.0f && std::isfinite(scale) && std::isfinite(1.0f / scale); }

int QuantBits(QuantDType type) { return type == QuantDType::kInt16 ? 16 : 8; }

}  // namespace ge::quant
