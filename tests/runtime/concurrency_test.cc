// One compiled model, many threads: 16 threads running it through
// CompiledModel::Run and Session::RunGraph get the bits of serial runs, for a
// static model, a dynamic one (shapes varying by run) and one with control
// flow; concurrent runs past ge.exec.maxArenas wait for an arena instead of
// allocating one. The tsan preset runs these (docs/runtime.md,
// ThreadSanitizer).
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "device/device.h"
#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "ge/session.h"
#include "runtime/execute/arena_pool.h"
#include "runtime/execution_plan.h"
#include "sequence_model.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;

namespace {

constexpr int kThreads = 16;
constexpr int kRoundsPerThread = 12;

using Inputs = std::vector<Tensor>;

// Runs every input set serially, then from kThreads threads at once (even
// threads through CompiledModel::Run, odd ones through Session::RunGraph, all
// on the session's one compiled model), and counts the runs whose outputs
// differ from the serial ones in any bit, or that threw.
struct ConcurrencyReport {
  int mismatches = 0;
  int errors = 0;
  int runs = 0;
};

ConcurrencyReport RunFromManyThreads(std::unique_ptr<ge::Graph> graph, const std::vector<Inputs>& cases,
                                     ge::Options options = {}) {
  ge::Session session(std::move(options));
  session.AddGraph(1, std::move(graph));
  std::shared_ptr<const ge::CompiledModel> model = session.GetCompiledModel(1);
  // Each case twice, the second run's outputs kept: a dynamic model plans an
  // input-shape signature on its second run (ge.exec.dynamicPlanAfterRuns),
  // and its two tiers may round differently; every later run gives the
  // plan's bits.
  std::vector<std::vector<Tensor>> serial;
  for (const Inputs& inputs : cases) {
    model->Run(inputs);
    serial.push_back(model->Run(inputs));
  }

  std::atomic<int> mismatches{0}, errors{0}, runs{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < kRoundsPerThread; ++round) {
        size_t index = static_cast<size_t>(t * 5 + round) % cases.size();
        try {
          std::vector<Tensor> outputs = t % 2 == 0 ? model->Run(cases[index]) : session.RunGraph(1, cases[index]);
          bool same = outputs.size() == serial[index].size();
          for (size_t i = 0; same && i < outputs.size(); ++i) {
            same = ge::test::BitIdentical(outputs[i], serial[index][i]);
          }
          if (!same) ++mismatches;
        } catch (...) {
          ++errors;
        }
        ++runs;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return {mismatches.load(), errors.load(), runs.load()};
}

// y = If(c) then x + x else x * x, x [?].
std::unique_ptr<ge::Graph> IfGraph() {
  auto branch = [](const std::string& name, const std::string& op) {
    ge::GraphBuilder b(name);
    ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim});
    b.Output(b.Op(op, {x, x})[0]);
    return b.Build();
  };
  ge::GraphBuilder b("if_model");
  ge::Value* c = b.Input("c", DataType::kBool, {});
  ge::Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim});
  b.Output(b.Op("If", {c, x}, {{"then_branch", branch("then", "Add")}, {"else_branch", branch("else", "Mul")}})[0]);
  return b.Build();
}

void CheckReport(const ConcurrencyReport& report) {
  CHECK(report.runs == kThreads * kRoundsPerThread);
  CHECK(report.errors == 0);
  CHECK(report.mismatches == 0);
}

}  // namespace

TEST_CASE("concurrency: 16 threads on a static model match serial runs bit for bit", "[concurrency]") {
  ge::test::ConvReluModel conv;
  std::vector<Inputs> cases;
  for (uint32_t seed = 0; seed < 6; ++seed) cases.push_back({ge::test::RandomTensor(conv.InputShape(), 300 + seed)});
  CheckReport(RunFromManyThreads(conv.Build(), cases));
}

TEST_CASE("concurrency: 16 threads on a dynamic model at varying shapes match serial runs", "[concurrency]") {
  ge::test::SequenceModel sequence;
  std::vector<Inputs> cases;
  for (uint32_t seed = 0; seed < 7; ++seed) {
    cases.push_back({ge::test::SequenceModel::Input(1 + seed % 3, 2 + seed % 4, 400 + seed)});
  }
  CheckReport(RunFromManyThreads(sequence.Build(), cases));
  // The same, node by node (no per-shape plans).
  CheckReport(RunFromManyThreads(sequence.Build(), cases, {{"ge.exec.dynamicPlanCacheBytes", "0"}}));
}

TEST_CASE("concurrency: 16 threads on a model with control flow match serial runs", "[concurrency]") {
  std::vector<Inputs> cases;
  for (uint32_t seed = 0; seed < 6; ++seed) {
    Tensor cond = Tensor::FromVector(DataType::kBool, Shape{}, std::vector<uint8_t>{static_cast<uint8_t>(seed % 2)});
    cases.push_back({cond, ge::test::RandomTensor({2 + seed}, 500 + seed)});
  }
  CheckReport(RunFromManyThreads(IfGraph(), cases));
}

TEST_CASE("concurrency: runs past ge.exec.maxArenas wait for an arena", "[concurrency]") {
  ge::runtime::ArenaPool pool(ge::device::CpuDevice().allocator(), 1024, 2);
  std::atomic<bool> third_acquired{false};
  std::thread waiter;
  {
    auto first = pool.Acquire();
    auto second = pool.Acquire();
    CHECK(first.data() != second.data());
    waiter = std::thread([&] {
      auto third = pool.Acquire();
      third_acquired = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK_FALSE(third_acquired.load());  // waiting, not allocating
    CHECK(pool.allocated() == 2);
  }
  waiter.join();
  CHECK(third_acquired.load());
  CHECK(pool.allocated() == 2);
}

TEST_CASE("concurrency: 16 threads share ge.exec.maxArenas arenas and still match serial runs", "[concurrency]") {
  ge::test::ConvReluModel conv;
  std::vector<Inputs> cases;
  for (uint32_t seed = 0; seed < 4; ++seed) cases.push_back({ge::test::RandomTensor(conv.InputShape(), 600 + seed)});
  CheckReport(RunFromManyThreads(conv.Build(), cases, {{"ge.exec.maxArenas", "2"}}));

  auto model = ge::CompiledModel::Compile(conv.Build(), {{"ge.exec.maxArenas", "2"}});
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 4; ++round) model->Run(cases[static_cast<size_t>(t + round) % cases.size()]);
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(model->impl().arenas->max_arenas() == 2);
  CHECK(model->impl().arenas->allocated() <= 2);
}
