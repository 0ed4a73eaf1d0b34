// Host buffers that one run after another of a dynamic model reuses.
//
// A dynamic model learns its tensors' sizes only as a run goes, so it cannot
// place them in one planned arena. The pool hands out 64-byte aligned
// buffers by size class (multiples of 64 bytes up to 256, then four classes
// per power of two, so a buffer is at most 25% larger than asked) and takes them back at their last use; freed
// buffers wait on per-class free lists for the next request of their class.
// A KV cache growing by one row per token thus reaches a new class only every
// few dozen tokens, and a run at sizes seen before allocates nothing: the
// pool keeps what it allocated at its high-water mark until it is destroyed.
// One run uses a pool at a time (not thread-safe).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge::runtime {

class BufferPool {
 public:
  static constexpr size_t kAlignment = 64;

  BufferPool() = default;
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A buffer of at least `bytes` (a distinct one for 0 bytes). Throws
  // ge::Error (kInvalidArgument) when the memory cannot be allocated.
  std::byte* Take(size_t bytes);
  // Gives back a buffer Take returned for the same `bytes`.
  void Give(std::byte* buffer, size_t bytes);

  // Buffers allocated from the system so far (new size classes, or more of
  // one than were free): the count a steady state keeps at zero.
  uint64_t allocations() const { return allocations_; }
  // Bytes of every buffer the pool holds, in use or free.
  size_t held_bytes() const { return held_bytes_; }

  // The size class of `bytes` and that class's buffer size (for tests).
  static size_t ClassOf(size_t bytes);
  static size_t ClassBytes(size_t size_class);

 private:
  struct SizeClass {
    std::vector<std::byte*> free;
    size_t buffers = 0;  // allocated, in use or free
  };
  std::vector<SizeClass> classes_;  // by size class
  std::vector<std::byte*> all_;
  uint64_t allocations_ = 0;
  size_t held_bytes_ = 0;
};

}  // namespace ge::runtime
