// A pool of activation arenas, one per concurrent run.
//
// A run leases an arena for its duration and gives it back; arenas are kept
// for the next run, so steady-state runs allocate no activation memory.
// Concurrent runs each get their own arena (the free list is mutex-protected).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "device/device.h"

namespace ge::runtime {

class ArenaPool {
 public:
  ArenaPool(device::Allocator& allocator, size_t arena_bytes);
  ~ArenaPool();
  ArenaPool(const ArenaPool&) = delete;
  ArenaPool& operator=(const ArenaPool&) = delete;

  // Gives the arena back to the pool when destroyed.
  class Lease {
   public:
    Lease(ArenaPool& pool, std::byte* arena) : pool_(pool), arena_(arena) {}
    ~Lease() { pool_.Return(arena_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    std::byte* data() const { return arena_; }

   private:
    ArenaPool& pool_;
    std::byte* arena_;
  };

  Lease Acquire();
  size_t arena_bytes() const { return arena_bytes_; }

 private:
  void Return(std::byte* arena);

  device::Allocator& allocator_;
  size_t arena_bytes_;
  std::mutex mutex_;
  std::vector<std::byte*> free_;
  std::vector<std::byte*> all_;
};

}  // namespace ge::runtime
