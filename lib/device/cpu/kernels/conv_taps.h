// How the loop kernels (direct_conv.cc, small_conv.cc) walk a convolution:
// in 3-D, a 2-D geometry having a depth of 1, one filter tap at a time, each
// tap touching a range of output positions that needs no bounds checks.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "ge/graph.h"

namespace ge::device::cpu {

inline constexpr size_t kConvAxes = 3;
using Dims3 = std::array<int64_t, kConvAxes>;

// Per-axis values of a 1-3 axis window, leading axes filled with `fill`.
inline Dims3 Pad3(const std::vector<int64_t>& values, int64_t fill) {
  Dims3 out;
  out.fill(fill);
  std::copy(values.begin(), values.end(), out.begin() + (kConvAxes - values.size()));
  return out;
}

// The spatial dims of a channels-first activation [N, C, spatial...].
inline Dims3 SpatialDims(const Shape& shape) {
  return Pad3(std::vector<int64_t>(shape.dims().begin() + 2, shape.dims().end()), 1);
}

inline int64_t CeilDiv(int64_t a, int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }

// The positions `o` in [0, count) for which o * stride + offset lands in
// [0, limit): the rows a filter tap touches, so the inner loops need no bounds checks.
struct Range {
  int64_t begin, end;
};
inline Range ValidRange(int64_t count, int64_t limit, int64_t stride, int64_t offset) {
  const int64_t begin = std::max<int64_t>(0, CeilDiv(-offset, stride));
  const int64_t end = std::min(count, CeilDiv(limit - offset, stride));
  return {begin, std::max(begin, end)};
}

}  // namespace ge::device::cpu
