#include "runtime/compile/memory_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::runtime {
namespace {

size_t AlignUp(size_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

// A buffer that owns bytes: a request that is not a view, with its lifetime
// (and its uses) widened to cover every view of it.
struct Root {
  size_t request;
  size_t size;  // aligned
  int first_use;
  int last_use;
  std::vector<int> uses;
};

// Follows alias chains to the owning request; rejects cycles and bad indices.
std::vector<size_t> ResolveRoots(const std::vector<BufferRequest>& requests) {
  std::vector<size_t> root(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (requests[i].first_use > requests[i].last_use) {
      throw Error(ErrorCode::kInternal, fmt::format("memory planner: buffer {} is used at steps {}..{} (first > last)",
                                                    i, requests[i].first_use, requests[i].last_use));
    }
    size_t current = i;
    for (size_t hops = 0; requests[current].alias_of >= 0; ++hops) {
      size_t target = static_cast<size_t>(requests[current].alias_of);
      if (target >= requests.size() || hops >= requests.size()) {
        throw Error(ErrorCode::kInternal,
                    fmt::format("memory planner: buffer {} aliases a missing buffer or an alias cycle", i));
      }
      current = target;
    }
    root[i] = current;
  }
  return root;
}

std::vector<Root> CollectRoots(const std::vector<BufferRequest>& requests, const std::vector<size_t>& root_of) {
  std::vector<Root> roots;
  std::vector<size_t> position(requests.size(), std::numeric_limits<size_t>::max());
  for (size_t i = 0; i < requests.size(); ++i) {
    if (root_of[i] != i) continue;
    position[i] = roots.size();
    roots.push_back(Root{i, AlignUp(requests[i].size), requests[i].first_use, requests[i].last_use, {}});
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    Root& root = roots[position[root_of[i]]];
    root.first_use = std::min(root.first_use, requests[i].first_use);
    root.last_use = std::max(root.last_use, requests[i].last_use);
    root.uses.insert(root.uses.end(), requests[i].uses.begin(), requests[i].uses.end());
    root.uses.push_back(requests[i].first_use);
    root.uses.push_back(requests[i].last_use);
  }
  for (Root& root : roots) {
    std::sort(root.uses.begin(), root.uses.end());
    root.uses.erase(std::unique(root.uses.begin(), root.uses.end()), root.uses.end());
  }
  return roots;
}

bool LifetimesIntersect(const Root& a, const Root& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
}

// Whether two roots need their bytes at once: their lifetimes intersect or,
// given happens_before, the earlier is not done with its bytes (every use
// happened) before the later writes them.
bool RootsConflict(const Root& a, const Root& b, const HappensBefore& happens_before) {
  if (LifetimesIntersect(a, b)) return true;
  if (!happens_before) return false;
  const Root& earlier = a.last_use < b.first_use ? a : b;
  const Root& later = &earlier == &a ? b : a;
  return !std::all_of(earlier.uses.begin(), earlier.uses.end(),
                      [&](int use) { return happens_before(use, later.first_use); });
}

// Which roots may not share bytes (RootsConflict). With several streams kept
// as a matrix, since every strategy asks the same questions.
class Conflicts {
 public:
  Conflicts(const std::vector<Root>& roots, const HappensBefore& happens_before)
      : roots_(roots), ordered_(static_cast<bool>(happens_before)) {
    if (!ordered_) return;
    const size_t n = roots.size();
    matrix_.assign(n * n, false);
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = a + 1; b < n; ++b) {
        matrix_[a * n + b] = matrix_[b * n + a] = RootsConflict(roots[a], roots[b], happens_before);
      }
    }
  }
  bool operator()(size_t a, size_t b) const {
    return ordered_ ? matrix_[a * roots_.size() + b] : LifetimesIntersect(roots_[a], roots_[b]);
  }

 private:
  const std::vector<Root>& roots_;
  bool ordered_;
  std::vector<bool> matrix_;
};

// The bytes of all roots side by side. Every offset any strategy places, and
// every peak, stays below it, so once it fits int64 no sum below can wrap.
// Each size is within ge.maxTensorBytes, but their sum need not be.
size_t TotalBytes(const std::vector<Root>& roots) {
  int64_t total = 0;
  for (const Root& root : roots) {
    if (root.size > static_cast<size_t>(std::numeric_limits<int64_t>::max()) ||
        __builtin_add_overflow(total, static_cast<int64_t>(root.size), &total)) {
      throw Error(ErrorCode::kInvalidModel,
                  fmt::format("the {} buffers of the memory plan need more bytes than int64 can count", roots.size()));
    }
  }
  return static_cast<size_t>(total);
}

// Peak over steps of the bytes live at that step (a difference array over time).
size_t LowerBound(const std::vector<Root>& roots) {
  if (roots.empty()) return 0;
  int begin = roots.front().first_use, end = roots.front().last_use;
  for (const Root& root : roots) {
    begin = std::min(begin, root.first_use);
    end = std::max(end, root.last_use);
  }
  std::vector<long long> delta(static_cast<size_t>(end - begin) + 2, 0);
  for (const Root& root : roots) {
    delta[root.first_use - begin] += static_cast<long long>(root.size);
    delta[root.last_use - begin + 1] -= static_cast<long long>(root.size);
  }
  long long live = 0, peak = 0;
  for (long long d : delta) peak = std::max(peak, live += d);
  return static_cast<size_t>(peak);
}

// One greedy placement: the order roots are taken in, and best or first fit.
struct Strategy {
  const char* name;
  bool (*before)(const Root& a, const Root& b);  // placement order (a stable sort keeps ties in request order)
  bool best_fit;
};

bool LargerFirst(const Root& a, const Root& b) {
  if (a.size != b.size) return a.size > b.size;
  return a.first_use < b.first_use;
}
bool EarlierFirst(const Root& a, const Root& b) {
  if (a.first_use != b.first_use) return a.first_use < b.first_use;
  return a.size > b.size;
}
bool LongerFirst(const Root& a, const Root& b) {
  int la = a.last_use - a.first_use, lb = b.last_use - b.first_use;
  if (la != lb) return la > lb;
  return LargerFirst(a, b);
}

constexpr Strategy kStrategies[] = {
    {"size_best_fit", LargerFirst, true},
    {"size_first_fit", LargerFirst, false},
    {"first_use_best_fit", EarlierFirst, true},
    {"lifetime_best_fit", LongerFirst, true},
};

// Returns the offset of each root.
std::vector<size_t> Place(const std::vector<Root>& roots, const Conflicts& conflicts, const Strategy& strategy) {
  std::vector<size_t> order(roots.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strategy.before(roots[a], roots[b]); });

  std::vector<size_t> offsets(roots.size(), 0);
  std::vector<size_t> placed;  // indices into roots, in placement order
  std::vector<std::pair<size_t, size_t>> taken;
  for (size_t index : order) {
    const Root& root = roots[index];
    // Byte ranges taken, while this root needs its bytes, by buffers placed before it.
    taken.clear();
    for (size_t other : placed) {
      if (roots[other].size != 0 && conflicts(index, other)) {
        taken.emplace_back(offsets[other], offsets[other] + roots[other].size);
      }
    }
    std::sort(taken.begin(), taken.end());
    size_t best_offset = 0, best_gap = std::numeric_limits<size_t>::max();
    bool found = false;
    size_t cursor = 0;  // end of the ranges seen so far
    for (const auto& [begin, end] : taken) {
      if (begin > cursor) {
        size_t gap = begin - cursor;
        if (gap >= root.size && gap < best_gap) {
          best_gap = gap;
          best_offset = cursor;
          found = true;
          if (!strategy.best_fit) break;
        }
      }
      cursor = std::max(cursor, end);
    }
    offsets[index] = found ? best_offset : cursor;
    placed.push_back(index);
  }
  return offsets;
}

size_t ArenaBytes(const std::vector<Root>& roots, const std::vector<size_t>& offsets) {
  size_t bytes = 0;
  for (size_t i = 0; i < roots.size(); ++i) bytes = std::max(bytes, offsets[i] + roots[i].size);
  return bytes;
}

}  // namespace

MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, bool reuse, const HappensBefore& happens_before) {
  std::vector<size_t> root_of = ResolveRoots(requests);
  std::vector<Root> roots = CollectRoots(requests, root_of);

  MemoryPlan plan;
  plan.no_reuse_bytes = TotalBytes(roots);
  plan.lower_bound_bytes = LowerBound(roots);

  std::vector<size_t> root_offsets(roots.size(), 0);
  if (reuse) {
    Conflicts conflicts(roots, happens_before);
    plan.arena_bytes = std::numeric_limits<size_t>::max();
    for (const Strategy& strategy : kStrategies) {
      std::vector<size_t> offsets = Place(roots, conflicts, strategy);
      size_t bytes = ArenaBytes(roots, offsets);
      if (bytes < plan.arena_bytes) {
        plan.arena_bytes = bytes;
        plan.strategy = strategy.name;
        root_offsets = std::move(offsets);
      }
    }
  } else {
    size_t next = 0;
    for (size_t i = 0; i < roots.size(); ++i) {
      root_offsets[i] = next;
      next += roots[i].size;
    }
    plan.arena_bytes = next;
    plan.strategy = "no_reuse";
  }

  std::vector<size_t> offset_of_request(requests.size(), 0);
  for (size_t i = 0; i < roots.size(); ++i) offset_of_request[roots[i].request] = root_offsets[i];
  plan.offsets.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) plan.offsets[i] = offset_of_request[root_of[i]];
  return plan;
}

std::optional<std::pair<size_t, size_t>> FindPlacementClash(std::vector<BufferRequest> requests,
                                                            const std::vector<size_t>& offsets,
                                                            const HappensBefore& happens_before) {
  for (BufferRequest& request : requests) {
    const int target = request.alias_of;
    if (target >= 0 && static_cast<size_t>(target) < requests.size() &&
        offsets[&request - requests.data()] != offsets[target]) {
      request.alias_of = -1;  // placed apart from what it could have shared: a buffer of its own
    }
  }
  std::vector<size_t> root_of = ResolveRoots(requests);
  std::vector<Root> roots = CollectRoots(requests, root_of);
  // By offset: a root's bytes can only meet those of the roots after it that
  // start before it ends.
  std::vector<size_t> order(roots.size());
  std::iota(order.begin(), order.end(), 0);
  auto offset_of = [&](size_t root) { return offsets[roots[root].request]; };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return offset_of(a) < offset_of(b); });
  for (size_t i = 0; i < order.size(); ++i) {
    const Root& a = roots[order[i]];
    if (a.size == 0) continue;
    const size_t end = offset_of(order[i]) + a.size;
    for (size_t j = i + 1; j < order.size() && offset_of(order[j]) < end; ++j) {
      const Root& b = roots[order[j]];
      if (b.size != 0 && RootsConflict(a, b, happens_before)) return std::make_pair(a.request, b.request);
    }
  }
  return std::nullopt;
}

}  // namespace ge::runtime
