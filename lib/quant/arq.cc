#include "quant/arq.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/axis_view.h"
#include "quant/minmax_scale.h"

namespace ge::quant {
namespace {

// w viewed around the channel axis (one channel per tensor unless channel_wise).
AxisView LayoutOf(const std::vector<int64_t>& dims, int64_t channel_axis, bool channel_wise) {
  const auto rank = static_cast<int64_t>(dims.size());
  if (channel_wise && (channel_axis < 0 || channel_axis >= rank)) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("ARQ: channel axis {} is out of range for a rank-{} weight", channel_axis, rank));
  }
  int64_t elements = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (dims[d] < 0) throw Error(ErrorCode::kInvalidArgument, fmt::format("ARQ: weight dim {} is {}", d, dims[d]));
    elements *= dims[d];
  }
  // Per tensor: one channel of every element.
  const AxisView layout =
      channel_wise ? ViewAround(dims, static_cast<size_t>(channel_axis)) : AxisView{1, 1, elements};
  if (layout.size() == 0) throw Error(ErrorCode::kInvalidArgument, "ARQ: the weight tensor is empty");
  return layout;
}

void CheckBits(int bits) {
  if (bits < 2 || bits > 8) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("ARQ: quant_bits {} is not one of 6, 7, 8", bits));
  }
}

}  // namespace

WeightQuantParams ArqCalibrate(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                               const ArqParams& params) {
  CheckBits(params.quant_bits);
  const AxisView layout = LayoutOf(dims, channel_axis, params.channel_wise);
  std::vector<float> mins(layout.length, std::numeric_limits<float>::infinity());
  std::vector<float> maxs(layout.length, -std::numeric_limits<float>::infinity());
  for (int64_t i = 0; i < layout.size(); ++i) {
    if (!std::isfinite(w[i])) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("ARQ: weight element {} is {}", i, w[i]));
    }
    const int64_t c = layout.AxisIndexOf(i);
    mins[c] = std::min(mins[c], w[i]);
    maxs[c] = std::max(maxs[c], w[i]);
  }

  WeightQuantParams result;
  result.quant_bits = params.quant_bits;
  for (int64_t c = 0; c < layout.length; ++c) {
    float scale = MinMaxScale(mins[c], maxs[c], params.quant_bits, params.asymmetric);
    // An all-zero channel: any scale quantizes it exactly; 1 keeps 1/scale finite.
    if (scale == 0.0f) scale = 1.0f;
    if (!ScaleIsUsable(scale)) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("ARQ: channel {} (min {}, max {}) gives scale {}, whose inverse overflows float", c,
                              mins[c], maxs[c], scale));
    }
    result.scale.push_back(scale);
    result.offset.push_back(MinMaxOffset(mins[c], scale, params.quant_bits, params.asymmetric));
  }
  return result;
}

std::vector<int8_t> ArqQuantize(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                                const WeightQuantParams& params) {
  CheckBits(params.quant_bits);
  if (params.scale.empty() || params.scale.size() != params.offset.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("ARQ: {} scales and {} offsets; need the same positive count", params.scale.size(),
                            params.offset.size()));
  }
  const bool channel_wise = params.scale.size() > 1;
  const AxisView layout = LayoutOf(dims, channel_axis, channel_wise);
  if (static_cast<size_t>(layout.length) != params.scale.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("ARQ: {} scales for {} channels on axis {}", params.scale.size(), layout.length,
                            channel_axis));
  }
  const float q_min = -std::ldexp(1.0f, params.quant_bits - 1);
  const float q_max = std::ldexp(1.0f, params.quant_bits - 1) - 1.0f;
  std::vector<int8_t> q(layout.size());
  for (int64_t i = 0; i < layout.size(); ++i) {
    const int64_t c = layout.AxisIndexOf(i);
    const float value = std::nearbyint(w[i] / params.scale[c]) + static_cast<float>(params.offset[c]);
    // NaN weights were rejected by ArqCalibrate; a NaN here would be a caller bug, kept defined as q_min.
    q[i] = static_cast<int8_t>(std::isnan(value) ? q_min : std::clamp(value, q_min, q_max));
  }
  return q;
}

std::vector<float> ArqRestore(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                              const WeightQuantParams& params) {
  const std::vector<int8_t> q = ArqQuantize(w, dims, channel_axis, params);
  const AxisView layout = LayoutOf(dims, channel_axis, params.scale.size() > 1);
  std::vector<float> restored(q.size());
  for (int64_t i = 0; i < layout.size(); ++i) {
    const int64_t c = layout.AxisIndexOf(i);
    restored[i] = static_cast<float>((static_cast<double>(q[i]) - params.offset[c]) * params.scale[c]);
  }
  return restored;
}

double ArqNoiseRatio(const float* w, const std::vector<int64_t>& dims, int64_t channel_axis,
                     const WeightQuantParams& params) {
  const std::vector<float> restored = ArqRestore(w, dims, channel_axis, params);
  double noise = 0, power = 0;
  for (size_t i = 0; i < restored.size(); ++i) {
    noise += (static_cast<double>(w[i]) - restored[i]) * (static_cast<double>(w[i]) - restored[i]);
    power += static_cast<double>(w[i]) * w[i];
  }
  return power > 0 ? noise / power : 0.0;
}

}  // namespace ge::quant
