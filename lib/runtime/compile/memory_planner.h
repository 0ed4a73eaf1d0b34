// Static memory planning: places buffers with known lifetimes in one arena.
//
// The planner knows nothing about graphs or kernels. Time is the index of a
// step in the execution order; a buffer is live on the closed interval
// [first_use, last_use]. Two buffers whose intervals intersect never share a
// byte; the others may reuse each other's bytes, provided the steps really
// run in that order: when steps run on several streams, index order is not
// run order, and the caller passes the happens-before relation of the steps.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>
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
  // Every step that writes or reads the buffer. Only consulted with a
  // happens-before relation (several streams); first_use and last_use count
  // as uses anyway.
  std::vector<int> uses;
};

// happens_before(a, b): step a has finished whenever step b starts, in every
// run. Without it the steps run one after another in index order.
using HappensBefore = std::function<bool(int a, int b)>;

struct MemoryPlan {
  std::vector<size_t> offsets;   // one per request, multiples of kArenaAlignment
  size_t arena_bytes = 0;        // bytes the arena needs
  size_t no_reuse_bytes = 0;     // sum of the aligned sizes (every buffer its own range)
  size_t lower_bound_bytes = 0;  // max over steps of the aligned bytes live at that step
  std::string strategy;          // the placement strategy that gave arena_bytes (see PlanMemory)
};

// reuse = false gives every buffer its own range (ge.exec.disableReuseMemory;
// strategy "no_reuse").
//
// With reuse, two buffers conflict when their lifetimes intersect or, given
// happens_before, when some use of the earlier one does not happen before
// the first use (the write) of the later one. Several greedy strategies
// place the buffers, each taking them in its own order and putting each one
// into a gap between already placed, conflicting buffers (else above all of
// them); the smallest arena wins (ties: the first strategy listed):
//   size_best_fit      largest first, the smallest gap that fits
//   size_first_fit     largest first, the lowest gap that fits
//   first_use_best_fit in order of first use, the smallest gap that fits
//   lifetime_best_fit  longest lifetime first, the smallest gap that fits
// Throws ge::Error (kInternal) on malformed requests (alias cycles or
// out-of-range aliases, first > last).
MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, bool reuse,
                      const HappensBefore& happens_before = nullptr);

// Checks a stored placement (from a model file) against the requests: two
// buffers PlanMemory would keep apart must not share a byte (each counted at
// its aligned size). A request whose offset is its alias target's shares
// that target's bytes; one placed elsewhere is a buffer of its own. Returns
// the first two requests that clash, or nullopt. `offsets` has one entry per
// request and each offset plus its aligned size fits size_t.
std::optional<std::pair<size_t, size_t>> FindPlacementClash(std::vector<BufferRequest> requests,
                                                            const std::vector<size_t>& offsets,
                                                            const HappensBefore& happens_before = nullptr);

}  // namespace ge::runtime
