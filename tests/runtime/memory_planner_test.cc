// The memory planner against brute-force checks: live buffers never share a
// byte, reuse happens, the arena is at least the peak of live bytes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "ge/error.h"
#include "runtime/compile/memory_planner.h"

using ge::runtime::BufferRequest;
using ge::runtime::FindPlacementClash;
using ge::runtime::kArenaAlignment;
using ge::runtime::MemoryPlan;
using ge::runtime::PlanMemory;

namespace {

size_t Aligned(size_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; }

int Root(const std::vector<BufferRequest>& requests, int i) {
  while (requests[i].alias_of >= 0) i = requests[i].alias_of;
  return i;
}

// Lifetime of the bytes a request owns: its own, widened by every view of it.
std::vector<std::pair<int, int>> EffectiveLifetimes(const std::vector<BufferRequest>& requests) {
  std::vector<std::pair<int, int>> life(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) life[i] = {requests[i].first_use, requests[i].last_use};
  for (size_t i = 0; i < requests.size(); ++i) {
    int root = Root(requests, static_cast<int>(i));
    life[root].first = std::min(life[root].first, requests[i].first_use);
    life[root].second = std::max(life[root].second, requests[i].last_use);
  }
  return life;
}

// Every property of a plan, checked pair by pair and step by step.
void CheckPlan(const std::vector<BufferRequest>& requests, const MemoryPlan& plan) {
  REQUIRE(plan.offsets.size() == requests.size());
  auto life = EffectiveLifetimes(requests);
  size_t no_reuse = 0;
  int last_step = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    CHECK(plan.offsets[i] % kArenaAlignment == 0);
    int root = Root(requests, static_cast<int>(i));
    CHECK(plan.offsets[i] == plan.offsets[root]);  // a view sits on what it views
    if (root != static_cast<int>(i)) continue;
    no_reuse += Aligned(requests[i].size);
    last_step = std::max(last_step, life[i].second);
    CHECK(plan.offsets[i] + requests[i].size <= plan.arena_bytes);
  }
  for (size_t a = 0; a < requests.size(); ++a) {
    for (size_t b = a + 1; b < requests.size(); ++b) {
      if (requests[a].alias_of >= 0 || requests[b].alias_of >= 0) continue;
      bool live_together = life[a].first <= life[b].second && life[b].first <= life[a].second;
      bool share_bytes = plan.offsets[a] < plan.offsets[b] + requests[b].size &&
                         plan.offsets[b] < plan.offsets[a] + requests[a].size;
      if (live_together && share_bytes) FAIL("buffers " << a << " and " << b << " are live together and overlap");
    }
  }
  size_t peak = 0;
  for (int step = 0; step <= last_step; ++step) {
    size_t live = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].alias_of < 0 && life[i].first <= step && step <= life[i].second) live += Aligned(requests[i].size);
    }
    peak = std::max(peak, live);
  }
  CHECK(plan.lower_bound_bytes == peak);
  CHECK(plan.no_reuse_bytes == no_reuse);
  CHECK(plan.arena_bytes >= plan.lower_bound_bytes);
  CHECK(plan.arena_bytes <= plan.no_reuse_bytes);
}

std::vector<BufferRequest> RandomRequests(std::mt19937& generator) {
  std::uniform_int_distribution<int> count(1, 40), step(0, 30), length(0, 6), size(0, 5000), coin(0, 3);
  std::vector<BufferRequest> requests(count(generator));
  for (size_t i = 0; i < requests.size(); ++i) {
    int first = step(generator);
    requests[i] = BufferRequest{static_cast<size_t>(size(generator)), first, first + length(generator), -1};
    // About one in four is a view of an earlier buffer (possibly of a view).
    if (i > 0 && coin(generator) == 0) requests[i].alias_of = std::uniform_int_distribution<int>(0, i - 1)(generator);
  }
  return requests;
}

// Brute force over pairs: do two buffers that are live together (each with
// its views, aligned sizes) share a byte at these offsets? Views sit on
// their targets here.
bool LiveBuffersOverlap(const std::vector<BufferRequest>& requests, const std::vector<size_t>& offsets) {
  auto life = EffectiveLifetimes(requests);
  for (size_t a = 0; a < requests.size(); ++a) {
    for (size_t b = a + 1; b < requests.size(); ++b) {
      if (requests[a].alias_of >= 0 || requests[b].alias_of >= 0) continue;
      if (Aligned(requests[a].size) == 0 || Aligned(requests[b].size) == 0) continue;
      bool live_together = life[a].first <= life[b].second && life[b].first <= life[a].second;
      bool share_bytes = offsets[a] < offsets[b] + Aligned(requests[b].size) &&
                         offsets[b] < offsets[a] + Aligned(requests[a].size);
      if (live_together && share_bytes) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("memory planner reuses the bytes of dead buffers", "[memory_planner]") {
  // A chain a -> b -> c: a is dead when c is written, so they share.
  std::vector<BufferRequest> requests = {{100, 0, 1, -1}, {100, 1, 2, -1}, {100, 2, 3, -1}};
  MemoryPlan plan = PlanMemory(requests, true);
  CheckPlan(requests, plan);
  CHECK(plan.offsets[0] == plan.offsets[2]);
  CHECK(plan.arena_bytes == 256);  // two 128-byte slots
  CHECK(plan.no_reuse_bytes == 384);
  CHECK(plan.lower_bound_bytes == 256);
}

TEST_CASE("memory planner picks the smallest gap that fits", "[memory_planner]") {
  // Placed largest first, the first five fill [0, 1024) at steps 0..1. At
  // steps 5..6 only 0 (512 B), 3 (128 B) and 5 (64 B) are live, leaving a
  // 256-byte gap at 512 and a 64-byte gap at 896: the last buffer takes the
  // smaller one.
  std::vector<BufferRequest> requests = {
      {512, 0, 9, -1}, {256, 0, 1, -1}, {128, 0, 9, -1}, {64, 0, 1, -1}, {64, 0, 9, -1}, {64, 5, 6, -1},
  };
  MemoryPlan plan = PlanMemory(requests, true);
  CheckPlan(requests, plan);
  CHECK(plan.offsets[0] == 0);
  CHECK(plan.offsets[1] == 512);
  CHECK(plan.offsets[2] == 768);
  CHECK(plan.offsets[3] == 896);
  CHECK(plan.offsets[5] == 896);
  CHECK(plan.arena_bytes == 1024);
  CHECK(plan.lower_bound_bytes == 1024);
}

TEST_CASE("memory planner without reuse gives every buffer its own range", "[memory_planner]") {
  std::vector<BufferRequest> requests = {{100, 0, 1, -1}, {100, 1, 2, -1}, {10, 2, 3, 1}, {100, 2, 3, -1}};
  MemoryPlan plan = PlanMemory(requests, false);
  CheckPlan(requests, plan);
  CHECK(plan.arena_bytes == plan.no_reuse_bytes);
  CHECK(plan.arena_bytes == 3 * 128);
  CHECK(plan.offsets[2] == plan.offsets[1]);
}

TEST_CASE("memory planner keeps a viewed buffer alive for as long as its view", "[memory_planner]") {
  // b views a and is read at step 5, so c (steps 2..3) may not take a's bytes.
  std::vector<BufferRequest> requests = {{128, 0, 1, -1}, {0, 1, 5, 0}, {128, 2, 3, -1}};
  MemoryPlan plan = PlanMemory(requests, true);
  CheckPlan(requests, plan);
  CHECK(plan.offsets[1] == plan.offsets[0]);
  CHECK(plan.offsets[2] != plan.offsets[0]);
  CHECK(plan.lower_bound_bytes == 256);
}

TEST_CASE("memory planner holds on random lifetimes", "[memory_planner]") {
  std::mt19937 generator(1234);
  for (int round = 0; round < 300; ++round) {
    std::vector<BufferRequest> requests = RandomRequests(generator);
    INFO("round " << round);
    CheckPlan(requests, PlanMemory(requests, true));
    MemoryPlan no_reuse = PlanMemory(requests, false);
    CheckPlan(requests, no_reuse);
    CHECK(no_reuse.arena_bytes == no_reuse.no_reuse_bytes);
  }
}

TEST_CASE("memory planner rejects malformed requests", "[memory_planner]") {
  auto code_of = [](const std::vector<BufferRequest>& requests) {
    try {
      PlanMemory(requests, true);
    } catch (const ge::Error& error) {
      return error.code();
    }
    return ge::ErrorCode::kOk;
  };
  CHECK(code_of({{8, 3, 2, -1}}) == ge::ErrorCode::kInternal);              // first after last
  CHECK(code_of({{8, 0, 1, 1}, {8, 0, 1, 0}}) == ge::ErrorCode::kInternal);  // alias cycle
  CHECK(code_of({{8, 0, 1, 7}}) == ge::ErrorCode::kInternal);                // alias out of range
  CHECK(code_of({}) == ge::ErrorCode::kOk);
}

TEST_CASE("a stored placement clashes exactly when live buffers overlap", "[memory_planner]") {
  std::mt19937 generator(4321);
  int clashes = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<BufferRequest> requests = RandomRequests(generator);
    INFO("round " << round);
    MemoryPlan plan = PlanMemory(requests, true);
    CHECK_FALSE(FindPlacementClash(requests, plan.offsets));
    // Move one buffer that neither views nor is viewed, as a tampered file would.
    std::vector<bool> viewed(requests.size(), false);
    for (const BufferRequest& request : requests) {
      if (request.alias_of >= 0) viewed[request.alias_of] = true;
    }
    std::vector<size_t> movable;
    for (size_t i = 0; i < requests.size(); ++i) {
      if (requests[i].alias_of < 0 && !viewed[i]) movable.push_back(i);
    }
    if (movable.empty()) continue;
    std::vector<size_t> offsets = plan.offsets;
    size_t moved = movable[std::uniform_int_distribution<size_t>(0, movable.size() - 1)(generator)];
    offsets[moved] = kArenaAlignment * std::uniform_int_distribution<size_t>(0, plan.arena_bytes / kArenaAlignment)(generator);
    const bool clash = FindPlacementClash(requests, offsets).has_value();
    CHECK(clash == LiveBuffersOverlap(requests, offsets));
    clashes += clash ? 1 : 0;
  }
  CHECK(clashes > 30);  // the moves land on live bytes often enough to test both answers
}

TEST_CASE("a stored placement: views on their target share it, elsewhere they are buffers of their own",
          "[memory_planner]") {
  // 1 may share 0's bytes (in place); 2 is live with both.
  std::vector<BufferRequest> requests = {{128, 0, 1, -1}, {128, 1, 3, 0}, {128, 2, 3, -1}};
  CHECK_FALSE(FindPlacementClash(requests, {0, 0, 128}));
  CHECK_FALSE(FindPlacementClash(requests, {0, 256, 128}));  // not in place: three ranges
  auto clash = FindPlacementClash(requests, {0, 128, 128});   // not in place, on top of 2
  REQUIRE(clash);
  CHECK(std::minmax(clash->first, clash->second) == std::minmax(size_t{1}, size_t{2}));
}

TEST_CASE("a stored placement on two streams needs the uses ordered", "[memory_planner]") {
  // Steps 0 and 1 run on two streams with no event between them: buffers
  // written at 0 and at 1 may not share bytes although their lifetimes do not
  // intersect. With 0 happening before 1 they may.
  std::vector<BufferRequest> requests = {{64, 0, 0, -1, {0}}, {64, 1, 1, -1, {1}}};
  CHECK_FALSE(FindPlacementClash(requests, {0, 0}));
  CHECK(FindPlacementClash(requests, {0, 0}, [](int, int) { return false; }));
  CHECK_FALSE(FindPlacementClash(requests, {0, 0}, [](int a, int b) { return a < b; }));
}
