#include "runtime/memory_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "ge/error.h"

namespace ge::runtime {
namespace {

size_t AlignUp(size_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

// A buffer that owns bytes: a request that is not a view, with its lifetime
// widened to cover every view of it.
struct Root {
  size_t request;
  size_t size;  // aligned
  int first_use;
  int last_use;
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
    roots.push_back(Root{i, AlignUp(requests[i].size), requests[i].first_use, requests[i].last_use});
  }
  for (size_t i = 0; i < requests.size(); ++i) {
    Root& root = roots[position[root_of[i]]];
    root.first_use = std::min(root.first_use, requests[i].first_use);
    root.last_use = std::max(root.last_use, requests[i].last_use);
  }
  return roots;
}

bool LifetimesIntersect(const Root& a, const Root& b) {
  return a.first_use <= b.last_use && b.first_use <= a.last_use;
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

// Greedy by size, best fit: see memory_planner.h. Returns the offset of each root.
std::vector<size_t> PlaceWithReuse(const std::vector<Root>& roots) {
  std::vector<size_t> order(roots.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (roots[a].size != roots[b].size) return roots[a].size > roots[b].size;
    return roots[a].first_use < roots[b].first_use;
  });

  std::vector<size_t> offsets(roots.size(), 0);
  std::vector<size_t> placed;  // indices into roots, in placement order
  for (size_t index : order) {
    const Root& root = roots[index];
    // Byte ranges taken, during this root's lifetime, by buffers placed before it.
    std::vector<std::pair<size_t, size_t>> taken;
    for (size_t other : placed) {
      if (roots[other].size != 0 && LifetimesIntersect(root, roots[other])) {
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
        }
      }
      cursor = std::max(cursor, end);
    }
    offsets[index] = found ? best_offset : cursor;
    placed.push_back(index);
  }
  return offsets;
}

}  // namespace

MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, bool reuse) {
  std::vector<size_t> root_of = ResolveRoots(requests);
  std::vector<Root> roots = CollectRoots(requests, root_of);

  MemoryPlan plan;
  plan.lower_bound_bytes = LowerBound(roots);
  for (const Root& root : roots) plan.no_reuse_bytes += root.size;

  std::vector<size_t> root_offsets(roots.size(), 0);
  if (reuse) {
    root_offsets = PlaceWithReuse(roots);
  } else {
    size_t next = 0;
    for (size_t i = 0; i < roots.size(); ++i) {
      root_offsets[i] = next;
      next += roots[i].size;
    }
  }
  for (size_t i = 0; i < roots.size(); ++i) {
    plan.arena_bytes = std::max(plan.arena_bytes, root_offsets[i] + roots[i].size);
  }

  std::vector<size_t> offset_of_request(requests.size(), 0);
  for (size_t i = 0; i < roots.size(); ++i) offset_of_request[roots[i].request] = root_offsets[i];
  plan.offsets.resize(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) plan.offsets[i] = offset_of_request[root_of[i]];
  return plan;
}

}  // namespace ge::runtime
