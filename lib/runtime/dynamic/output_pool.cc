#include "runtime/dynamic/output_pool.h"

#include <cstdlib>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/byte_size.h"
#include "runtime/dynamic/buffer_pool.h"

namespace ge::runtime {

struct OutputPool::Shared {
  struct Free {
    std::byte* buffer;
    size_t size_class;
  };
  std::mutex mutex;
  std::deque<Free> free;  // oldest first
  size_t free_bytes = 0;
  size_t keep_bytes = 0;  // the most bytes one run's outputs took
  uint64_t allocations = 0;

  // Under the mutex: frees the oldest buffers beyond keep_bytes.
  void Trim() {
    while (free_bytes > keep_bytes && !free.empty()) {
      free_bytes -= BufferPool::ClassBytes(free.front().size_class);
      std::free(free.front().buffer);
      free.pop_front();
    }
  }

  void Give(std::byte* buffer, size_t size_class) {
    std::lock_guard lock(mutex);
    free.push_back({buffer, size_class});
    free_bytes += BufferPool::ClassBytes(size_class);
    Trim();
  }
};

OutputPool::OutputPool() : shared_(std::make_shared<Shared>()) {}

OutputPool::~OutputPool() {
  std::lock_guard lock(shared_->mutex);
  shared_->keep_bytes = 0;  // tensors still out free their buffers when they go
  shared_->Trim();
}

Tensor OutputPool::Allocate(DataType dtype, const Shape& shape) {
  const size_t bytes = static_cast<size_t>(CheckedByteSize(shape, dtype).value_or(0));
  std::byte* buffer = nullptr;
  size_t size_class = 0;
  {
    // The smallest free buffer that holds the bytes without wasting more than as many again.
    std::lock_guard lock(shared_->mutex);
    auto best = shared_->free.end();
    for (auto it = shared_->free.begin(); it != shared_->free.end(); ++it) {
      const size_t capacity = BufferPool::ClassBytes(it->size_class);
      if (capacity < bytes || capacity > 2 * bytes + BufferPool::kAlignment) continue;
      if (best == shared_->free.end() || it->size_class < best->size_class) best = it;
    }
    if (best != shared_->free.end()) {
      buffer = best->buffer;
      size_class = best->size_class;
      shared_->free_bytes -= BufferPool::ClassBytes(size_class);
      shared_->free.erase(best);
    } else {
      ++shared_->allocations;
    }
  }
  if (buffer == nullptr) {
    // Half as much again as asked: a cache that grows by a row per step
    // comes back to the same buffer for many steps before it outgrows it.
    size_class = BufferPool::ClassOf(bytes + bytes / 2);
    buffer = static_cast<std::byte*>(std::aligned_alloc(BufferPool::kAlignment, BufferPool::ClassBytes(size_class)));
    if (buffer == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("cannot allocate {} bytes for a {} output of shape {}: out "
                                                           "of memory",
                                                           bytes, DataTypeName(dtype), shape.ToString()));
    }
  }
  std::shared_ptr<void> owner(buffer, [shared = shared_, size_class](void* returned) {
    shared->Give(static_cast<std::byte*>(returned), size_class);
  });
  return Tensor::View(dtype, shape, buffer, std::move(owner));
}

void OutputPool::NoteRun(const std::vector<Tensor>& outputs) {
  size_t bytes = 0;  // what the run's buffers hold, headroom included
  for (const Tensor& output : outputs) bytes += BufferPool::ClassBytes(BufferPool::ClassOf(output.nbytes() * 2));
  std::lock_guard lock(shared_->mutex);
  shared_->keep_bytes = std::max(shared_->keep_bytes, bytes);
}

uint64_t OutputPool::allocations() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->allocations;
}

}  // namespace ge::runtime
