// Index math of numpy broadcasting, shared by the broadcasting kernels.
//
// The output shape is described as a list of merged dims: adjacent output dims
// are merged when every operand either runs contiguously across both or is
// broadcast across both, and output dims of size 1 are dropped. A same-shape
// operation becomes one dim; [N,C,H,W] + [1,C,1,1] becomes [N, C, H*W] with
// the second operand's strides [0, 1, 0]. Kernels walk the output as rows
// (all merged dims but the last) times the last merged dim, whose stride is
// 0 (broadcast) or 1 (contiguous) for every operand, so inner loops vectorize.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ge/shape.h"

namespace ge::device::cpu {

class BroadcastLayout {
 public:
  // Throws ge::Error(kInvalidArgument) when an input does not broadcast to out.
  BroadcastLayout(const Shape& out, std::span<const Shape* const> inputs);

  int64_t inner() const { return dims_.back(); }
  int64_t rows() const { return rows_; }
  // 0 or 1: the element stride of input k along the inner dim.
  int64_t inner_stride(size_t k) const { return strides_[k].back(); }
  // Element offset of the start of `row` in input k.
  int64_t RowOffset(size_t k, int64_t row) const;

  const std::vector<int64_t>& dims() const { return dims_; }

 private:
  std::vector<int64_t> dims_;                  // merged output dims, at least one
  std::vector<std::vector<int64_t>> strides_;  // per input, per merged dim; 0 where broadcast
  int64_t rows_ = 1;
};

}  // namespace ge::device::cpu
