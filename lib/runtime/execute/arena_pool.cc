#include "runtime/execute/arena_pool.h"

#include "runtime/compile/memory_planner.h"

namespace ge::runtime {

ArenaPool::ArenaPool(device::Allocator& allocator, size_t arena_bytes, size_t max_arenas)
    : allocator_(allocator), arena_bytes_(arena_bytes), max_arenas_(max_arenas) {}

ArenaPool::~ArenaPool() {
  for (std::byte* arena : all_) allocator_.Free(arena);
}

ArenaPool::Lease ArenaPool::Acquire() {
  std::unique_lock lock(mutex_);
  auto at_bound = [&] { return max_arenas_ != 0 && all_.size() >= max_arenas_; };
  returned_.wait(lock, [&] { return !free_.empty() || !at_bound(); });
  if (free_.empty()) {
    // Allocated under the lock so that all_ stays consistent; it happens only
    // when more runs are in flight than ever before.
    auto* arena = static_cast<std::byte*>(allocator_.Allocate(arena_bytes_, kArenaAlignment));
    all_.push_back(arena);
    free_.push_back(arena);
  }
  std::byte* arena = free_.back();
  free_.pop_back();
  return Lease(*this, arena);
}

size_t ArenaPool::allocated() const {
  std::lock_guard lock(mutex_);
  return all_.size();
}

void ArenaPool::Return(std::byte* arena) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(arena);
  }
  returned_.notify_one();
}

}  // namespace ge::runtime
