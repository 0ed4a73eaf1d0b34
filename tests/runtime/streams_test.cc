// Multi-stream plans: stream assignment, event pruning, memory reuse across
// streams only where events order the uses, concurrent CPU execution, and
// streams in .gem files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <thread>

#include "../../benchmarks/inception_graph.h"
#include "ge/builder.h"
#include "ge/error.h"
#include "runtime/compile/compiler.h"
#include "runtime/compile/storage_plan.h"
#include "runtime/compile/stream_assignment.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::runtime::Step;
using ge::runtime::StorageKind;

namespace {

const Step& StepOf(const ge::CompiledModel::Impl& impl, const std::string& node_name) {
  auto it = std::find_if(impl.steps.begin(), impl.steps.end(),
                         [&](const Step& step) { return step.node->name() == node_name; });
  INFO("node " << node_name);
  REQUIRE(it != impl.steps.end());
  return *it;
}

int ValueId(const ge::CompiledModel::Impl& impl, const std::string& name) {
  for (size_t id = 0; id < impl.values.size(); ++id) {
    if (impl.values[id]->name() == name) return static_cast<int>(id);
  }
  FAIL("no value " << name);
  return -1;
}

size_t EventCount(const ge::CompiledModel::Impl& impl) {
  size_t events = 0;
  for (const Step& step : impl.steps) events += step.waits.size();
  return events;
}

// Happens-before by graph search over "next step on the same stream" and
// "event" edges: independent of the vector clocks the runtime uses.
std::vector<std::vector<bool>> Reachability(const ge::CompiledModel::Impl& impl) {
  const size_t n = impl.steps.size();
  std::vector<std::vector<int>> next(n);
  std::vector<int> last_on_stream(impl.stream_count, -1);
  for (size_t s = 0; s < n; ++s) {
    int& last = last_on_stream[impl.steps[s].stream];
    if (last >= 0) next[last].push_back(static_cast<int>(s));
    last = static_cast<int>(s);
    for (int producer : impl.steps[s].waits) next[producer].push_back(static_cast<int>(s));
  }
  std::vector<std::vector<bool>> reach(n, std::vector<bool>(n, false));
  for (size_t a = 0; a < n; ++a) {
    std::vector<int> todo = next[a];
    while (!todo.empty()) {
      int b = todo.back();
      todo.pop_back();
      if (reach[a][b]) continue;
      reach[a][b] = true;
      todo.insert(todo.end(), next[b].begin(), next[b].end());
    }
  }
  return reach;
}

// No step may overwrite bytes that a step not ordered before it still uses:
// for two arena buffers sharing bytes, every use of the one written first
// (its writer and readers, through views too) happens before the writer of
// the other, unless that writer is the use itself (in-place execution).
void CheckNoRaces(const ge::CompiledModel::Impl& impl) {
  auto reach = Reachability(impl);
  // Each value's bytes belong to the non-view value it (transitively) views.
  std::vector<int> base(impl.values.size());
  std::vector<int> writer(impl.values.size(), -1);
  for (size_t id = 0; id < base.size(); ++id) base[id] = static_cast<int>(id);
  std::vector<std::vector<int>> uses(impl.values.size());
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const Step& step = impl.steps[s];
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      int out = step.outputs[i];
      if (step.is_view) base[out] = base[step.inputs[step.kernel->AliasedInput(i)]];
      writer[out] = static_cast<int>(s);
      uses[base[out]].push_back(static_cast<int>(s));
    }
    for (int in : step.inputs) {
      if (in >= 0) uses[base[in]].push_back(static_cast<int>(s));
    }
  }
  auto bytes = [&](size_t id) { return ge::runtime::ValueBytes(*impl.values[id]); };
  for (size_t u = 0; u < impl.values.size(); ++u) {
    if (base[u] != static_cast<int>(u) || writer[u] < 0 || impl.storage[u].kind != StorageKind::kArena) continue;
    for (size_t v = 0; v < impl.values.size(); ++v) {
      if (u == v || base[v] != static_cast<int>(v) || writer[v] <= writer[u] ||
          impl.storage[v].kind != StorageKind::kArena) {
        continue;
      }
      uint64_t ub = impl.storage[u].offset, vb = impl.storage[v].offset;
      if (ub + bytes(u) <= vb || vb + bytes(v) <= ub) continue;  // disjoint
      for (int use : uses[u]) {
        INFO(impl.values[u]->name() << " and " << impl.values[v]->name() << " share bytes; step " << use);
        CHECK((use == writer[v] || reach[use][writer[v]]));
      }
    }
  }
}

// Multi-stream plans are opt-in on the CPU.
ge::Options Streams(ge::Options options = {}) {
  options["ge.enableSingleStream"] = "false";
  return options;
}

std::shared_ptr<const ge::CompiledModel> Compile(std::unique_ptr<ge::Graph> graph, const ge::Options& options) {
  return ge::CompiledModel::Compile(std::move(graph), options);
}

}  // namespace

TEST_CASE("streams: parallel branches run on their own streams, up to the maximum", "[streams]") {
  for (auto [max_streams, expected] : {std::pair{"4", 3}, std::pair{"2", 2}, std::pair{"1", 1}}) {
    INFO("ge.streamMaxParallelNum " << max_streams);
    auto impl = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(3, 2, 4, 6),
                                          Streams({{"ge.streamMaxParallelNum", max_streams}}));
    CHECK(impl->stream_count == expected);
    std::set<int> branch_streams;
    for (int branch = 0; branch < 3; ++branch) {
      std::string prefix = "b" + std::to_string(branch) + "_";
      int stream = StepOf(*impl, prefix + "0_conv").stream;
      branch_streams.insert(stream);
      // Each Relu runs inside its Conv2D (conv_post_op_fusion): a branch is two steps.
      CHECK(StepOf(*impl, prefix + "1_conv").stream == stream);
    }
    CHECK(static_cast<int>(branch_streams.size()) == expected);
    // The concat continues one branch's stream and waits for the others' last steps.
    CHECK(StepOf(*impl, "concat").waits.size() == static_cast<size_t>(expected - 1));
    CHECK_NOTHROW(ge::runtime::CheckStreams(*impl));
  }
  auto single = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(3, 2, 4, 6), {{"ge.enableSingleStream", "true"}});
  CHECK(single->stream_count == 1);
  CHECK(EventCount(*single) == 0);
}

TEST_CASE("streams: an event implied by another event path is pruned", "[streams]") {
  // a1 -> a2 on one stream; b1 reads a1 on another (an event); c reads a1
  // and b1 after b1 on b1's stream: a1 is already done there, no event.
  ge::GraphBuilder b("prune");
  ge::Value* x = b.Input("x", DataType::kFloat, {4, 8});
  ge::Value* a1 = b.Softmax(x, -1, "a1");
  ge::Value* a2 = b.Softmax(a1, -1, "a2");
  ge::Value* b1 = b.Softmax(a1, -1, "b1");
  ge::Value* c = b.Add(b1, a1, "c");
  b.Output(b.Add(a2, c, "out"));
  auto impl = ge::runtime::CompileGraph(b.Build(), Streams());
  REQUIRE(impl->stream_count == 2);
  const Step& a1_step = StepOf(*impl, "a1");
  const Step& c_step = StepOf(*impl, "c");
  CHECK(StepOf(*impl, "b1").stream != a1_step.stream);
  CHECK(c_step.stream != a1_step.stream);  // c reads a1 across streams ...
  CHECK(c_step.waits.empty());             // ... ordered already by b1's event
  CHECK(EventCount(*impl) == 2);           // b1 waits for a1, out for the other branch
  CHECK_NOTHROW(ge::runtime::CheckStreams(*impl));
}

TEST_CASE("streams: buffers of parallel branches never share bytes", "[streams]") {
  // Single-stream order runs branch p before branch q, so p's first buffer
  // is dead when q writes its own and the two share bytes. With a stream
  // per branch both may run at once: they must not.
  auto build = [] {
    ge::GraphBuilder b("counter_example");
    ge::Value* x = b.Input("x", DataType::kFloat, {16, 16});
    ge::Value* p2 = b.Softmax(b.Softmax(x, -1, "p1"), -1, "p2");
    ge::Value* q2 = b.Softmax(b.Softmax(x, -1, "q1"), -1, "q2");
    b.Output(b.Concat({p2, q2}, 0, "out"));
    return b.Build();
  };
  auto overlap = [](const ge::CompiledModel::Impl& impl, const std::string& u, const std::string& v) {
    const auto& su = impl.storage[ValueId(impl, u)];
    const auto& sv = impl.storage[ValueId(impl, v)];
    REQUIRE(su.kind == StorageKind::kArena);
    REQUIRE(sv.kind == StorageKind::kArena);
    size_t bytes = 16 * 16 * 4;
    return su.offset < sv.offset + bytes && sv.offset < su.offset + bytes;
  };
  auto single = ge::runtime::CompileGraph(build(), {{"ge.enableSingleStream", "true"}});
  CHECK((overlap(*single, "p1", "q1") || overlap(*single, "p1", "q2")));  // the counter-example is real
  CheckNoRaces(*single);

  auto streams = ge::runtime::CompileGraph(build(), Streams());
  REQUIRE(streams->stream_count == 2);
  CHECK(StepOf(*streams, "p1").stream != StepOf(*streams, "q1").stream);
  CHECK_FALSE(overlap(*streams, "p1", "q1"));
  CHECK_FALSE(overlap(*streams, "p1", "q2"));
  CHECK_FALSE(overlap(*streams, "p2", "q1"));
  CheckNoRaces(*streams);
}

TEST_CASE("streams: no step overwrites bytes another stream may still use", "[streams]") {
  for (const char* max_streams : {"2", "3", "8"}) {
    INFO("ge.streamMaxParallelNum " << max_streams);
    auto impl = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(5, 3, 4, 6),
                                          Streams({{"ge.streamMaxParallelNum", max_streams}}));
    CheckNoRaces(*impl);
  }
  auto mlp = ge::runtime::CompileGraph(ge::test::MlpModel().Build(), Streams());
  CheckNoRaces(*mlp);
}

TEST_CASE("streams: multi-stream runs equal single-stream runs", "[streams]") {
  ge::Tensor x = ge::test::RandomTensor({1, 8, 10, 10}, 3);
  auto single = Compile(ge::bench::InceptionLikeGraph(4, 3, 8, 10), {{"ge.enableSingleStream", "true"}});
  ge::Tensor expected = single->Run({x})[0];
  for (const char* threads : {"1", "2", "3"}) {
    INFO("ge.exec.intraOpThreads " << threads);
    auto streams = Compile(ge::bench::InceptionLikeGraph(4, 3, 8, 10), Streams({{"ge.exec.intraOpThreads", threads}}));
    REQUIRE(streams->impl().stream_count == 4);
    for (int run = 0; run < 20; ++run) CHECK(ge::test::MaxAbsDiff(streams->Run({x})[0], expected) < 1e-5);
  }
}

TEST_CASE("streams: concurrent runs of a multi-stream model equal serial runs", "[streams][concurrency]") {
  auto model = Compile(ge::bench::InceptionLikeGraph(3, 2, 4, 8), Streams({{"ge.exec.intraOpThreads", "1"}}));
  REQUIRE(model->impl().stream_count == 3);
  std::vector<ge::Tensor> inputs, expected;
  for (uint32_t seed = 0; seed < 8; ++seed) {
    inputs.push_back(ge::test::RandomTensor({1, 4, 8, 8}, seed));
    expected.push_back(model->Run({inputs.back()})[0]);
  }
  std::vector<int> mismatches(8, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int run = 0; run < 20; ++run) {
        if (!ge::test::BitIdentical(model->Run({inputs[t]})[0], expected[t])) ++mismatches[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(mismatches == std::vector<int>(8, 0));
}

TEST_CASE("streams: an error on one stream stops the run and reaches the caller", "[streams]") {
  ge::GraphBuilder b("failing_branch");
  ge::Value* n = b.Input("n", DataType::kInt32, {4});
  ge::Value* d = b.Input("d", DataType::kInt32, {4});
  ge::Value* x = b.Input("x", DataType::kFloat, {4, 4});
  ge::Value* quotient = b.Div(n, d, "quotient");  // integer division by zero throws
  ge::Value* soft = b.Softmax(b.Softmax(x, -1, "s1"), -1, "s2");
  b.Outputs({quotient, soft});
  auto model = Compile(b.Build(), Streams());
  REQUIRE(model->impl().stream_count == 2);
  ge::Tensor numerators(DataType::kInt32, {4}), divisors(DataType::kInt32, {4});
  for (int i = 0; i < 4; ++i) {
    numerators.data_as<int32_t>()[i] = 12;
    divisors.data_as<int32_t>()[i] = i + 1;
  }
  ge::Tensor xs = ge::test::RandomTensor({4, 4}, 9);
  CHECK(model->Run({numerators, divisors, xs})[0].data_as<const int32_t>()[3] == 3);
  divisors.data_as<int32_t>()[2] = 0;
  for (int run = 0; run < 10; ++run) CHECK_THROWS_AS(model->Run({numerators, divisors, xs}), ge::Error);
}

TEST_CASE("streams: a .gem file keeps streams and events", "[streams][gem]") {
  std::filesystem::path path = ge::test::TempDir("runtime-streams-gem") / "inception.gem";
  auto model = Compile(ge::bench::InceptionLikeGraph(3, 2, 4, 6), Streams());
  model->Save(path.string());
  auto loaded = ge::CompiledModel::Load(path.string());
  REQUIRE(loaded->impl().stream_count == model->impl().stream_count);
  for (size_t s = 0; s < model->impl().steps.size(); ++s) {
    CHECK(loaded->impl().steps[s].stream == model->impl().steps[s].stream);
    CHECK(loaded->impl().steps[s].waits == model->impl().steps[s].waits);
  }
  CHECK(loaded->memory().placement_strategy == model->memory().placement_strategy);
  ge::Tensor x = ge::test::RandomTensor({1, 4, 6, 6}, 4);
  CHECK(ge::test::BitIdentical(loaded->Run({x})[0], model->Run({x})[0]));
}

TEST_CASE("streams: a stored plan missing an event is rejected", "[streams][gem]") {
  auto impl = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(2, 1, 4, 6), Streams());
  REQUIRE(impl->stream_count == 2);
  for (Step& step : impl->steps) step.waits.clear();
  CHECK_THROWS_AS(ge::runtime::CheckStreams(*impl), ge::Error);
}

TEST_CASE("streams: one stream unless asked for more", "[streams][options]") {
  auto impl = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(3, 1, 4, 6), {});
  CHECK(impl->stream_count == 1);
  CHECK(EventCount(*impl) == 0);
}

TEST_CASE("streams: grown workspaces get a region per stream", "[streams][storage_plan]") {
  auto impl = ge::runtime::CompileGraph(ge::bench::InceptionLikeGraph(2, 1, 8, 10), Streams());
  REQUIRE(impl->stream_count == 2);
  std::vector<Step*> grown;
  for (Step& step : impl->steps) {
    if (step.kernel->WorkspaceBytes() == 0) continue;
    step.workspace_bytes = 0;  // as planned on a host whose kernels needed none
    grown.push_back(&step);
  }
  if (grown.size() < 2) GE_SKIP("the convolutions use no workspace on this host");
  const size_t arena = impl->memory.arena_bytes;
  ge::runtime::GrowWorkspaces(*impl);
  for (Step* a : grown) {
    CHECK(a->workspace_offset >= arena);
    CHECK(a->workspace_offset + a->workspace_bytes <= impl->memory.arena_bytes);
    for (Step* b : grown) {
      bool disjoint = a->workspace_offset + a->workspace_bytes <= b->workspace_offset ||
                      b->workspace_offset + b->workspace_bytes <= a->workspace_offset;
      CHECK((a->stream == b->stream || disjoint));
    }
  }
}

TEST_CASE("streams: stream options are validated", "[streams][options]") {
  for (const char* bad : {"0", "65", "-1", "x", "AIcoreEngine:4"}) {
    INFO(bad);
    CHECK_THROWS_AS(ge::runtime::CompileGraph(ge::test::MlpModel().Build(), {{"ge.streamMaxParallelNum", bad}}),
                    ge::Error);
  }
  CHECK_THROWS_AS(ge::runtime::CompileGraph(ge::test::MlpModel().Build(), {{"ge.enableSingleStream", "1"}}), ge::Error);
}
