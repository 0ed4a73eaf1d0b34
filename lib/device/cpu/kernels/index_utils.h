// Helpers shared by the kernels that address elements through index tensors
// or read an axis at run time (gather/scatter, ArgMax, Cumsum).
#pragma once

#include <string>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

// Wraps a negative index into [0, dim); throws naming the node (`label`) when
// it lies outside [-dim, dim). Called before any parallel loop, so a bad index
// fails cleanly.
inline int64_t WrapIndex(const std::string& label, int64_t index, int64_t dim, std::string_view what) {
  if (index < -dim || index >= dim) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: {} {} is out of range [{}, {})", label, what, index, -dim, dim));
  }
  return index < 0 ? index + dim : index;
}

// All indices of an index tensor wrapped into [0, dim).
inline std::vector<int64_t> WrappedIndices(const std::string& label, const TensorView& view, int64_t dim,
                                           std::string_view what) {
  std::vector<int64_t> indices = ReadIndexTensor(label, view, what);
  for (int64_t& index : indices) index = WrapIndex(label, index, dim, what);
  return indices;
}

// The axis of a kernel whose axis is a one-element int input read at run
// time (ArgMaxV2's dimension, Cumsum's axis), in [0, rank).
inline int64_t RuntimeAxis(const std::string& label, const TensorView& view, size_t rank, std::string_view what) {
  const std::vector<int64_t> axis = ReadIndexTensor(label, view, what);
  if (axis.size() != 1) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: {} must hold one integer, got {}", label, what, axis.size()));
  }
  return WrapIndex(label, axis[0], static_cast<int64_t>(rank), what);
}

}  // namespace ge::device::cpu
