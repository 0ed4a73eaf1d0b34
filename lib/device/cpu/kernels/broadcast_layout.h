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

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "device/cpu/kernels/kernel_utils.h"
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

  // Calls run(row, begin, count) for every inner run of the output, in chunks
  // of at most kChunk elements so that a same-shape op (one row) still
  // spreads over the threads; in parallel when the output is large.
  template <typename Run>
  void ParallelForRuns(Run&& run) const {
    constexpr int64_t kChunk = 8192;
    const int64_t inner_size = inner();
    const int64_t chunks_per_row = std::max<int64_t>(1, (inner_size + kChunk - 1) / kChunk);
    const int64_t tasks = rows_ * chunks_per_row;
    ParallelFor(tasks, rows_ * inner_size > kParallelGrain, [&](int64_t task) {
      const int64_t row = task / chunks_per_row;
      const int64_t begin = (task % chunks_per_row) * kChunk;
      const int64_t count = std::min(kChunk, inner_size - begin);
      if (count > 0) run(row, begin, count);
    });
  }

 private:
  std::vector<int64_t> dims_;                  // merged output dims, at least one
  std::vector<std::vector<int64_t>> strides_;  // per input, per merged dim; 0 where broadcast
  int64_t rows_ = 1;
};

}  // namespace ge::device::cpu
