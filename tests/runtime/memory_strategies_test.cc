// Placement strategies (the smallest arena wins), the cross-stream conflict
// rule of the memory planner, and the arena of the shared models against
// their lower bound.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include "ge/compiled_model.h"
#include "ge/onnx_importer.h"
#include "runtime/compile/memory_planner.h"
#include "test_support.h"

using ge::runtime::BufferRequest;
using ge::runtime::MemoryPlan;
using ge::runtime::PlanMemory;

namespace {

bool Overlap(const std::vector<BufferRequest>& requests, const MemoryPlan& plan, size_t a, size_t b) {
  return plan.offsets[a] < plan.offsets[b] + requests[b].size && plan.offsets[b] < plan.offsets[a] + requests[a].size;
}

}  // namespace

TEST_CASE("memory strategies: the smallest arena of the strategies is kept", "[memory_planner]") {
  // Largest first puts the 256-byte buffer (steps 4..5) at 0, where the
  // 192-byte buffers of step 2 cannot both go around it: 576 bytes. Placing
  // in order of first use packs steps 1..2 into [0, 512) and the 256-byte
  // buffer over the dead ones: 512 bytes, the lower bound.
  std::vector<BufferRequest> requests = {{192, 2, 2}, {128, 1, 2}, {192, 2, 4}, {256, 4, 5}};
  MemoryPlan plan = PlanMemory(requests, true);
  CHECK(plan.arena_bytes == 512);
  CHECK(plan.lower_bound_bytes == 512);
  CHECK(plan.strategy == "first_use_best_fit");
  for (size_t a = 0; a < requests.size(); ++a) {
    for (size_t b = a + 1; b < requests.size(); ++b) {
      bool live_together = requests[a].first_use <= requests[b].last_use && requests[b].first_use <= requests[a].last_use;
      CHECK_FALSE((live_together && Overlap(requests, plan, a, b)));
    }
  }
  CHECK(PlanMemory(requests, false).strategy == "no_reuse");
}

TEST_CASE("memory strategies: with streams, bytes are shared only along happens-before", "[memory_planner]") {
  // Steps alternate between two streams; an event orders step e after step
  // e - 3 on the other stream. Random buffers over random steps: whenever
  // two share bytes, every use of the earlier one happens before the write
  // of the later one.
  std::mt19937 generator(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int steps = 24;
    std::vector<int> stream(steps);
    for (int& s : stream) s = std::uniform_int_distribution<int>(0, 1)(generator);
    // reach[a][b]: a finishes before b starts (closure of stream order and events).
    std::vector<std::vector<bool>> reach(steps, std::vector<bool>(steps, false));
    for (int b = 0; b < steps; ++b) {
      for (int a = 0; a < b; ++a) {
        bool direct = stream[a] == stream[b] || a <= b - 3;
        bool via = false;
        for (int m = a + 1; m < b && !via; ++m) via = reach[a][m] && reach[m][b];
        reach[a][b] = direct || via;
      }
    }
    std::vector<BufferRequest> requests;
    const int count = std::uniform_int_distribution<int>(2, 30)(generator);
    for (int i = 0; i < count; ++i) {
      int first = std::uniform_int_distribution<int>(0, steps - 1)(generator);
      int last = std::min(steps - 1, first + std::uniform_int_distribution<int>(0, 4)(generator));
      BufferRequest request{static_cast<size_t>(std::uniform_int_distribution<int>(1, 4000)(generator)), first, last};
      request.uses = {first, last};
      if (last > first) request.uses.push_back(std::uniform_int_distribution<int>(first, last)(generator));
      requests.push_back(request);
    }
    MemoryPlan plan = PlanMemory(requests, true, [&](int a, int b) { return reach[a][b]; });
    for (size_t a = 0; a < requests.size(); ++a) {
      for (size_t b = 0; b < requests.size(); ++b) {
        if (a == b || !Overlap(requests, plan, a, b) || requests[a].first_use > requests[b].first_use) continue;
        INFO("trial " << trial << ": buffers " << a << " and " << b << " share bytes");
        REQUIRE(requests[a].last_use < requests[b].first_use);
        for (int use : requests[a].uses) CHECK(reach[use][requests[b].first_use]);
      }
    }
    CHECK(plan.arena_bytes >= plan.lower_bound_bytes);
  }
}

TEST_CASE("memory strategies: shared models need at most 5% over the lower bound", "[memory_planner][shared]") {
  auto shared = ge::test::SharedDir();
  if (!shared) GE_SKIP("../shared is absent: no shared models to plan");
  for (const char* name : {"squeezenet1_1", "tiny_cnn", "tiny_transformer"}) {
    std::filesystem::path path = *shared / "models" / (std::string(name) + ".onnx");
    if (!std::filesystem::exists(path)) GE_SKIP(path.string() << " is absent");
    INFO(name);
    auto model = ge::CompiledModel::Compile(ge::ImportOnnxFile(path.string()));
    ge::MemorySummary memory = model->memory();
    INFO("arena " << memory.arena_bytes << ", lower bound " << memory.lower_bound_bytes << ", no reuse "
                  << memory.no_reuse_bytes << ", " << memory.placement_strategy);
    CHECK(memory.arena_bytes >= memory.lower_bound_bytes);
    CHECK(static_cast<double>(memory.arena_bytes) <= 1.05 * static_cast<double>(memory.lower_bound_bytes));
  }
}
