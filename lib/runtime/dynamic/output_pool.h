// Buffers for the output tensors a dynamic model hands its callers.
//
// A decoder's caller feeds the caches one step returned into the next step
// and then drops them, so every step hands out outputs about the size of the
// ones it gets back. Allocating them fresh each time costs page faults and
// zero-filling (for a cache of 300 KB, more than the step's arithmetic).
// The pool gives out 64-byte aligned buffers, uninitialized (the kernel that
// produces an output writes all of it), and takes them back when the last
// Tensor holding one goes, from any thread. A request takes the smallest
// free buffer that holds it with at most as much again to spare; a new
// buffer gets half as much again as asked (by BufferPool's size classes),
// so a cache growing by a row per step comes back to its buffers for many
// steps. The pool keeps returned buffers while they total at most about
// twice the bytes of the largest run's outputs, dropping the oldest first,
// so buffers a growing cache has outgrown are freed. Tensors may outlive
// the pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "ge/tensor.h"

namespace ge::runtime {

class OutputPool {
 public:
  OutputPool();
  ~OutputPool();
  OutputPool(const OutputPool&) = delete;
  OutputPool& operator=(const OutputPool&) = delete;

  // An owning tensor over a pooled buffer; its contents are undefined.
  Tensor Allocate(DataType dtype, const Shape& shape);
  // One run's outputs: the pool keeps as many bytes of returned buffers as
  // the largest run's outputs took, for the next run.
  void NoteRun(const std::vector<Tensor>& outputs);

  // Buffers allocated from the system so far (for tests and reports).
  uint64_t allocations() const;

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
};

}  // namespace ge::runtime
