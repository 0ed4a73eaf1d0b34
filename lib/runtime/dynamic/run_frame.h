// What one run of a dynamic model works in, kept for the next run.
//
// A run of the node-by-node path (dynamic_executor.h) infers every node with
// the run's own shapes and runs its kernel on buffers from a BufferPool.
// The frame holds, per value, its shape and dtype for this run and where its
// bytes are; per step, the kernel the run used last (so that a run at the
// shapes of the previous one looks nothing up). Frames are reused: their
// shapes keep their capacity and their pools keep their buffers, so a run
// at shapes seen before allocates no tensor memory, and a step given what
// it was given last time skips inference (FrameInference). One run uses a frame at
// a time; FramePool hands each concurrent run its own.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "device/kernel.h"
#include "ge/tensor.h"
#include "runtime/dynamic/buffer_pool.h"
#include "runtime/dynamic/kernel_cache.h"
#include "runtime/dynamic/symbolic_steps.h"

namespace ge::runtime {

struct FrameValue {
  DataType dtype = DataType::kUndefined;
  Shape shape;
  void* data = nullptr;
  // The value whose pool buffer holds the bytes: the value itself, or the
  // one it is a view of; -1 when the bytes are not the pool's.
  int owner = -1;
  // When the value owns a pool buffer: the buffer, the bytes asked for it,
  // and the values (itself and its views) still alive on it.
  std::byte* buffer = nullptr;
  size_t buffer_bytes = 0;
  int buffer_users = 0;
  // Holds the bytes of graph inputs, constants, control-flow results and
  // graph outputs allocated for the caller; for pool bytes, a borrowed view
  // made when inference asks for the value's content. Empty otherwise.
  Tensor tensor;
  // `tensor` is a buffer this run allocated for the caller, not yet handed out.
  bool fresh = false;
};

// The kernel a step ran last and the key it was found under.
struct FrameKernel {
  std::shared_ptr<const ShapedKernel> kernel;
  KernelCache::Key key;
  size_t key_length = 0;  // the part of `key` that must match (the rank part for kernels that take shapes at run)
};

// What inference gave a step last, and what it was given: the dtype and
// shape of every input, and the bytes of those it read as values (a
// computed Reshape target, Slice bounds). A step given the same again has
// the same outputs, without inferring (which allocates shapes and formats
// strings) or checking them again.
struct FrameInference {
  bool valid = false;
  std::vector<int64_t> input_key;     // per input: dtype, rank, dims; -1 when absent
  std::vector<int> read_inputs;       // indices of the inputs read as values
  std::vector<std::byte> read_bytes;  // their bytes, one after another
  std::vector<DataType> output_dtypes;
  std::vector<Shape> output_shapes;
};

class RunFrame {
 public:
  RunFrame(size_t values, size_t steps) : values(values), kernels(steps), inferences(steps) {}

  // Forgets every value: pool buffers still in use (a run's outputs, or
  // what a failed run left) go back to the pool, tensors are let go.
  void Reset();

  // Where output `id` gets its bytes.
  void SetTensor(int id, Tensor tensor, bool fresh);                  // a tensor of its own
  void SetView(int id, int viewed);                                   // the bytes of value `viewed` (same elements)
  void SetPooled(int id);                                             // a pool buffer of its size
  // Drops the value: its pool buffer goes back when no view of it is alive.
  void Release(int id);
  // The value as a Tensor (inputs of control flow, constants for inference).
  const Tensor& TensorOf(int id);
  // Bytes of pool buffers alive (for profiles).
  size_t LiveBytes() const;

  std::vector<FrameValue> values;
  std::vector<FrameKernel> kernels;  // by step
  std::vector<FrameInference> inferences;  // by step
  // The run's values of the model's symbolic expressions (symbolic_steps.h).
  SymbolicRun symbolic;
  std::vector<int> readers_left;     // by value: steps still to read it
  BufferPool pool;
  uint64_t counted_allocations = 0;  // pool allocations FramePool has counted
  // Scratch the steps reuse.
  KernelCache::Key key;
  std::vector<device::TensorView> input_views, output_views;
};

// The frames of one model, one per concurrent run, kept between runs.
class FramePool {
 public:
  FramePool(size_t values, size_t steps) : values_(values), steps_(steps) {}

  class Lease {
   public:
    Lease(FramePool& pool, std::unique_ptr<RunFrame> frame) : pool_(pool), frame_(std::move(frame)) {}
    ~Lease() { pool_.Return(std::move(frame_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    RunFrame& frame() const { return *frame_; }

   private:
    FramePool& pool_;
    std::unique_ptr<RunFrame> frame_;
  };

  Lease Acquire();
  // Tensor buffers all frames allocated so far (a steady state adds none).
  uint64_t buffer_allocations() const;

 private:
  void Return(std::unique_ptr<RunFrame> frame);

  size_t values_, steps_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<RunFrame>> free_;
  uint64_t buffer_allocations_ = 0;  // counted as frames come back
};

}  // namespace ge::runtime
