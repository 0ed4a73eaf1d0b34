#include "quant/ifmr.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

#include <fmt/core.h>

#include "ge/error.h"
#include "quant/minmax_scale.h"

namespace ge::quant {
namespace {

void CheckParams(const IfmrParams& p) {
  const bool range_ok = p.search_range_start > 0.0f && p.search_range_start < p.search_range_end;
  const bool percentiles_ok =
      p.max_percentile > 0.5f && p.max_percentile <= 1.0f && p.min_percentile > 0.5f && p.min_percentile <= 1.0f;
  const bool step_ok = p.search_step > 0.0f && IfmrCandidateCount(p) <= kMaxIfmrCandidates;
  if (!range_ok || !std::isfinite(p.search_range_end) || !step_ok || !percentiles_ok) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("IFMR: need 0 < search_range_start < search_range_end (finite), search_step > 0 giving "
                            "at most {} candidates and percentiles in (0.5, 1]; got {}, {}, {}, {}, {}",
                            kMaxIfmrCandidates, p.search_range_start, p.search_range_end, p.search_step,
                            p.max_percentile, p.min_percentile));
  }
}

// The k-th value of `values` in `order` (std::greater: the k-th largest), k = N - floor(percentile * N), at
// least 1.
template <typename Order>
float KthInOrder(std::vector<float>& values, float percentile, Order order) {
  const auto n = static_cast<int64_t>(values.size());
  const auto k = std::max<int64_t>(1, n - static_cast<int64_t>(std::floor(static_cast<double>(percentile) * n)));
  auto nth = values.begin() + (k - 1);
  std::nth_element(values.begin(), nth, values.end(), order);
  return *nth;
}

// Mean squared error of rint(clip(x, lo, hi) / s) * s against x.
double ClipRoundError(std::span<const float> data, float lo, float hi, float s) {
  double sum = 0.0;
  for (const float x : data) {
    const double q = std::nearbyint(std::clamp(x, lo, hi) / s) * static_cast<double>(s);
    const double d = q - x;
    sum += d * d;
  }
  return sum / static_cast<double>(data.size());
}

}  // namespace

double IfmrCandidateCount(const IfmrParams& params) {
  const double span = static_cast<double>(params.search_range_end) - params.search_range_start;
  // The 1e-3 keeps `end` itself when span / step falls just short of an integer.
  return std::floor(span / params.search_step + 1e-3) + 1;
}

ActivationQuantParams IfmrCalibrate(std::span<const float> data, const IfmrParams& params) {
  CheckParams(params);
  if (data.empty()) throw Error(ErrorCode::kInvalidArgument, "IFMR: no calibration data");
  for (size_t i = 0; i < data.size(); ++i) {
    if (!std::isfinite(data[i])) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("IFMR: calibration value {} is {}", i, data[i]));
    }
  }
  std::vector<float> scratch(data.begin(), data.end());
  const float max0 = std::max(KthInOrder(scratch, params.max_percentile, std::greater<float>()), 0.0f);
  const float min0 = std::min(KthInOrder(scratch, params.min_percentile, std::less<float>()), 0.0f);

  const int bits = QuantBits(params.dst_type);
  const float half_range = std::ldexp(1.0f, bits - 1);
  ActivationQuantParams result;
  result.dst_type = params.dst_type;
  if (max0 == 0.0f && min0 == 0.0f) {  // all-zero data: any scale is exact
    result.offset = MinMaxOffset(0.0f, 1.0f, bits, params.asymmetric);
    return result;
  }

  // Candidate i is start + i * step (not a running sum, which would drift).
  const auto candidates = static_cast<int64_t>(IfmrCandidateCount(params));
  double best_error = std::numeric_limits<double>::infinity();
  for (int64_t i = 0; i < candidates; ++i) {
    const float ratio = params.search_range_start + static_cast<float>(i) * params.search_step;
    float lo, hi, s;
    if (params.asymmetric) {
      lo = min0;
      hi = ratio * max0;
      s = (hi - lo) / (2.0f * half_range - 1.0f);
    } else {
      const float anchor = std::fabs(max0) >= std::fabs(min0) ? max0 : min0;
      hi = ratio * std::fabs(anchor);
      lo = -hi;
      s = anchor > 0.0f ? hi / (half_range - 1.0f) : hi / half_range;
    }
    if (!ScaleIsUsable(s)) continue;
    const double error = ClipRoundError(data, lo, hi, s);
    if (error < best_error) {
      best_error = error;
      result.scale = s;
      result.offset =
          params.asymmetric ? -static_cast<int32_t>(std::nearbyint(lo / s)) - (int32_t{1} << (bits - 1)) : 0;
    }
  }
  if (best_error == std::numeric_limits<double>::infinity()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("IFMR: data range [{}, {}] gives no usable scale (1/scale overflows float)", min0, max0));
  }
  return result;
}

}  // namespace ge::quant
