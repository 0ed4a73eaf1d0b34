// A tensor seen around one of its axes as [outer, length, inner]: how often
// the axis repeats (the dims before it), its own dim, and how many elements
// one step along it spans (the dims after it). Kernels that work along an
// axis (TopK, Gather, Concat/Split, per-channel quantization) and Loop/Scan's
// slicing share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace ge {

struct AxisView {
  int64_t outer = 1;
  int64_t length = 1;
  int64_t inner = 1;

  int64_t size() const { return outer * length * inner; }
  // The position along the axis of element `index` of the whole tensor.
  int64_t AxisIndexOf(int64_t index) const { return (index / inner) % length; }
};

// `dims` around `axis` (< dims.size()). The dims before `first` are left out
// of outer: Gather keeps its batch dims apart.
inline AxisView ViewAround(std::span<const int64_t> dims, size_t axis, size_t first = 0) {
  AxisView view;
  for (size_t d = first; d < axis; ++d) view.outer *= dims[d];
  view.length = dims[axis];
  for (size_t d = axis + 1; d < dims.size(); ++d) view.inner *= dims[d];
  return view;
}

}  // namespace ge
