// The NonMaxSuppression selection, shared by the NonMaxSuppressionV6 schema
// (whose output row count is the number of boxes selected, so inference runs
// the selection when every input is constant) and the CPU kernel, so both agree.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace ge {

struct NmsParams {
  int64_t batches = 0;
  int64_t classes = 0;
  int64_t spatial = 0;            // boxes per batch entry
  int64_t max_per_class = 0;      // 0 selects nothing (ONNX: max_output_boxes_per_class)
  double iou_threshold = 0;       // a box overlapping a selected one by more than this is dropped
  std::optional<double> score_threshold;  // boxes must score strictly more (when given)
  bool center_point_box = false;  // boxes [x_center, y_center, width, height] instead of two corners
};

namespace nms_detail {

// An axis-aligned box as [min, max] per axis, from either ONNX box encoding.
struct Box {
  double y_min, x_min, y_max, x_max;
};

template <typename T>
Box ReadBox(const T* b, bool center_point_box) {
  const double v0 = static_cast<double>(b[0]), v1 = static_cast<double>(b[1]), v2 = static_cast<double>(b[2]),
               v3 = static_cast<double>(b[3]);
  if (center_point_box) return {v1 - v3 / 2, v0 - v2 / 2, v1 + v3 / 2, v0 + v2 / 2};
  // [y1, x1, y2, x2] gives any diagonal pair of corners.
  return {std::min(v0, v2), std::min(v1, v3), std::max(v0, v2), std::max(v1, v3)};
}

// Whether b overlaps a by more than the threshold; empty boxes and empty
// intersections never suppress.
inline bool Suppresses(const Box& a, const Box& b, double iou_threshold) {
  const double ix = std::min(a.x_max, b.x_max) - std::max(a.x_min, b.x_min);
  const double iy = std::min(a.y_max, b.y_max) - std::max(a.y_min, b.y_min);
  if (ix <= 0 || iy <= 0) return false;
  const double inter = ix * iy;
  const double area_a = (a.x_max - a.x_min) * (a.y_max - a.y_min);
  const double area_b = (b.x_max - b.x_min) * (b.y_max - b.y_min);
  const double uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

}  // namespace nms_detail

// ONNX NonMaxSuppression on boxes [batches, spatial, 4] and scores
// [batches, classes, spatial]: per (batch, class), boxes in order of
// decreasing score (ties: lower index first) are kept unless they overlap a
// kept box by more than the IoU threshold, up to max_per_class. Rows
// [batch, class, box] in batch, class, selection order.
template <typename T>
std::vector<std::array<int64_t, 3>> SelectBoxes(const T* boxes, const T* scores, const NmsParams& p) {
  std::vector<std::array<int64_t, 3>> selected;
  if (p.max_per_class <= 0) return selected;
  std::vector<nms_detail::Box> box(static_cast<size_t>(p.spatial));
  std::vector<int64_t> order;
  std::vector<int64_t> kept;
  for (int64_t b = 0; b < p.batches; ++b) {
    for (int64_t i = 0; i < p.spatial; ++i) {
      box[i] = nms_detail::ReadBox(boxes + (b * p.spatial + i) * 4, p.center_point_box);
    }
    for (int64_t c = 0; c < p.classes; ++c) {
      const T* s = scores + (b * p.classes + c) * p.spatial;
      order.clear();
      for (int64_t i = 0; i < p.spatial; ++i) {
        if (!p.score_threshold || static_cast<double>(s[i]) > *p.score_threshold) order.push_back(i);
      }
      std::stable_sort(order.begin(), order.end(), [&](int64_t l, int64_t r) { return s[l] > s[r]; });
      kept.clear();
      for (int64_t i : order) {
        if (static_cast<int64_t>(kept.size()) == p.max_per_class) break;
        const bool suppressed = std::any_of(kept.begin(), kept.end(), [&](int64_t k) {
          return nms_detail::Suppresses(box[k], box[i], p.iou_threshold);
        });
        if (suppressed) continue;
        kept.push_back(i);
        selected.push_back({b, c, i});
      }
    }
  }
  return selected;
}

}  // namespace ge
