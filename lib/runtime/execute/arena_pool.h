// A bounded pool of activation arenas, one per concurrent run.
//
// A run leases an arena for its duration and gives it back; arenas are kept
// for the next run, so steady-state runs allocate no activation memory.
// Concurrent runs each get their own arena, up to `max_arenas`
// (ge.exec.maxArenas): past it a run waits for a lease to come back instead of
// allocating, so a model's activation memory stays within
// max_arenas * arena_bytes however many threads run it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "device/device.h"

namespace ge::runtime {

class ArenaPool {
 public:
  // max_arenas == 0: no bound (one arena per concurrent run).
  ArenaPool(device::Allocator& allocator, size_t arena_bytes, size_t max_arenas);
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

  // Waits while max_arenas arenas are leased.
  Lease Acquire();
  size_t arena_bytes() const { return arena_bytes_; }
  size_t max_arenas() const { return max_arenas_; }
  // Arenas allocated so far (leased or free).
  size_t allocated() const;

 private:
  void Return(std::byte* arena);

  device::Allocator& allocator_;
  size_t arena_bytes_;
  size_t max_arenas_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::byte*> free_;
  std::vector<std::byte*> all_;
};

}  // namespace ge::runtime
