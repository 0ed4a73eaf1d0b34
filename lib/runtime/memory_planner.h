// Static memory planning: places buffers with known lifetimes in one arena.
//
// The planner knows nothing about graphs or kernels. Time is the index of a
// step in the execution order; a buffer is live on the closed interval
// [first_use, last_use]. Two buffers whose intervals intersect never share a
// byte; the others may reuse each other's bytes.
#pragma once

#include <cstddef>
#include <vector>

namespace ge::runtime {

inline constexpr size_t kArenaAlignment = 64;

struct BufferRequest {
  size_t size = 0;
  int first_use = 0;  // step that writes it
  int last_use = 0;   // last step that reads it (>= first_use)
  // >= 0: this buffer is a view of buffer alias_of (same bytes). The planner
  // places the view at its target's offset and keeps the target live for as
  // long as the view is; its own size is ignored.
  int alias_of = -1;
};

struct MemoryPlan {
  std::vector<size_t> offsets;   // one per request, multiples of kArenaAlignment
  size_t arena_bytes = 0;        // bytes the arena needs
  size_t no_reuse_bytes = 0;     // sum of the aligned sizes (every buffer its own range)
  size_t lower_bound_bytes = 0;  // max over steps of the aligned bytes live at that step
};

// reuse = false gives every buffer its own range (ge.exec.disableReuseMemory).
// With reuse, buffers are placed largest first, each in the smallest gap
// between already placed, lifetime-overlapping buffers that fits it (ties:
// lowest offset), else above all of them. Throws ge::Error (kInternal) on
// malformed requests (alias cycles or out-of-range aliases, first > last).
MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, bool reuse);

}  // namespace ge::runtime
