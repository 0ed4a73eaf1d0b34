// A KV-cache decode on the node-by-node path of a dynamic model: the cache
// grows by one row per run, so no input signature repeats and no static plan
// is compiled. After the first runs, no kernel is built (Concat, Transpose,
// the attention matmuls, Div and Softmax take their shapes at run time) and
// the frame's buffer pool allocates only when a tensor outgrows its size
// class. Results match a float64 reference at every step, with the weights
// read where they are or packed (ge.exec.dynamicPackWeights).
#include <catch2/catch.hpp>

#include "attention_cache_model.h"
#include "ge/compiled_model.h"
#include "ge/profile.h"
#include "runtime/dynamic/buffer_pool.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/dynamic/output_pool.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::Shape;
using ge::Tensor;
using ge::runtime::BufferPool;
using ge::test::AttentionCacheModel;
using ge::test::ExecutorOf;

namespace {

double MaxRelative(const Tensor& got, const Tensor& expected) {
  double worst = 0;
  for (int64_t i = 0; i < expected.num_elements(); ++i) {
    const double e = expected.data_as<float>()[i];
    worst = std::max(worst, std::abs(got.data_as<float>()[i] - e) / std::max(1.0, std::abs(e)));
  }
  return worst;
}

}  // namespace

TEST_CASE("kv cache: decoding 64 tokens builds no kernel after the first steps and matches float64",
          "[dynamic][kv_cache]") {
  // The projections read their weights where they are, or a packed copy
  // (ge.exec.dynamicPackWeights), or only a packed copy (ge.exec.releasePackedConstants).
  const std::string packing = GENERATE(as<std::string>{}, "", "ge.exec.dynamicPackWeights",
                                       "ge.exec.releasePackedConstants");
  INFO("packing " << packing);
  AttentionCacheModel attention;
  ge::Options options;
  if (!packing.empty()) options[packing] = "1";
  auto model = ge::CompiledModel::Compile(attention.Build(), options);
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);
  // Prefill: 5 tokens on an empty cache (zero-size past tensors).
  Tensor past_k(DataType::kFloat, {1, 0, AttentionCacheModel::kDim});
  Tensor past_v = past_k;
  Tensor x = ge::test::RandomTensor({1, 5, AttentionCacheModel::kDim}, 70);
  uint64_t kernels_after_warm_up = 0, allocations_at_32 = 0;
  double worst = 0;
  for (int step = 0; step < 64; ++step) {
    std::vector<Tensor> outputs = model->Run({x, past_k, past_v});
    std::vector<Tensor> expected = attention.Reference(x, past_k, past_v);
    REQUIRE(outputs[1].shape() == expected[1].shape());
    for (size_t i = 0; i < outputs.size(); ++i) worst = std::max(worst, MaxRelative(outputs[i], expected[i]));
    past_k = outputs[1];
    past_v = outputs[2];
    x = ge::test::RandomTensor({1, 1, AttentionCacheModel::kDim}, 71 + static_cast<uint32_t>(step));
    if (step == 2) kernels_after_warm_up = executor.kernels_built();
    if (step == 32) allocations_at_32 = executor.buffer_allocations();
  }
  CHECK(worst < 1e-5);
  CHECK(past_k.shape() == Shape{1, 5 + 63, AttentionCacheModel::kDim});
  CHECK(executor.plans().size() == 0);
  CHECK(executor.kernels_built() == kernels_after_warm_up);
  const ge::RunStats stats = model->run_stats();
  CHECK(stats.runs == 64);
  CHECK(stats.node_by_node_runs == 64);
  CHECK(stats.planned_runs == 0);
  CHECK(stats.plans_compiled == 0);
  CHECK(stats.kernels_built == kernels_after_warm_up);
  CHECK(stats.buffer_allocations == executor.buffer_allocations());
  // From 37 to 68 rows the caches cross a few size classes (each a handful
  // of new buffers), where a fresh allocation per step would be 32 x 5.
  CHECK(executor.buffer_allocations() - allocations_at_32 <= 24);
}

TEST_CASE("kv cache: runs at the shapes of the previous ones allocate no tensor buffer", "[dynamic][kv_cache]") {
  AttentionCacheModel attention;
  auto model = ge::CompiledModel::Compile(attention.Build(), {{"ge.exec.dynamicPlanCacheBytes", "0"}});
  const ge::runtime::DynamicExecutor& executor = ExecutorOf(*model);
  Tensor x = ge::test::RandomTensor({1, 3, AttentionCacheModel::kDim}, 80);
  Tensor past = ge::test::RandomTensor({1, 9, AttentionCacheModel::kDim}, 81);
  std::vector<Tensor> first = model->Run({x, past, past});
  // The caller keeps `first`: the second run's outputs need buffers of their
  // own; from then on each run gets back the buffers of the outputs the
  // caller dropped.
  model->Run({x, past, past});
  const uint64_t allocations = executor.buffer_allocations();
  const uint64_t kernels = executor.kernels_built();
  CHECK(allocations > 0);
  for (int run = 0; run < 5; ++run) {
    std::vector<Tensor> again = model->Run({x, past, past});
    for (size_t i = 0; i < again.size(); ++i) CHECK(ge::test::BitIdentical(again[i], first[i]));
  }
  CHECK(executor.buffer_allocations() == allocations);
  CHECK(executor.kernels_built() == kernels);
}

TEST_CASE("buffer pool: size classes are aligned and at most 25% above the request", "[dynamic][buffer_pool]") {
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{64}, size_t{65}, size_t{255}, size_t{256}, size_t{257},
                       size_t{1000}, size_t{4096}, size_t{4097}, size_t{1} << 20, (size_t{1} << 20) + 1}) {
    INFO("bytes " << bytes);
    const size_t size_class = BufferPool::ClassOf(bytes);
    const size_t class_bytes = BufferPool::ClassBytes(size_class);
    CHECK(class_bytes >= bytes);
    CHECK(class_bytes % BufferPool::kAlignment == 0);
    if (bytes > 256) CHECK(class_bytes <= bytes + bytes / 4 + BufferPool::kAlignment);
    if (size_class > 0) CHECK(BufferPool::ClassBytes(size_class - 1) < bytes);  // the smallest class that fits
  }
  BufferPool pool;
  std::byte* a = pool.Take(1000);
  pool.Give(a, 1000);
  CHECK(pool.Take(1010) == a);  // same class: reused
  CHECK(pool.allocations() == 1);
  std::byte* b = pool.Take(1000);  // a is in use: a new buffer
  CHECK(b != a);
  CHECK(pool.allocations() == 2);
  CHECK(reinterpret_cast<uintptr_t>(b) % BufferPool::kAlignment == 0);
}

TEST_CASE("output pool: dropped outputs come back, within twice their size, and may outlive the pool",
          "[dynamic][buffer_pool]") {
  Tensor kept;
  {
    ge::runtime::OutputPool pool;
    Tensor a = pool.Allocate(DataType::kFloat, {1000});
    const void* a_bytes = a.data();
    CHECK(reinterpret_cast<uintptr_t>(a_bytes) % BufferPool::kAlignment == 0);
    pool.NoteRun({a});
    a = Tensor();  // the caller drops it: back in the pool
    Tensor b = pool.Allocate(DataType::kFloat, {1100});  // a little larger: fits the headroom
    CHECK(b.data() == a_bytes);
    CHECK(pool.allocations() == 1);
    Tensor c = pool.Allocate(DataType::kFloat, {10});  // b is in use, and the pool keeps nothing else
    CHECK(c.data() != b.data());
    CHECK(pool.allocations() == 2);
    kept = b;  // outlives the pool
  }
  kept.data_as<float>()[1099] = 1.0f;  // still valid memory (ASan checks)
  CHECK(kept.num_elements() == 1100);
}
