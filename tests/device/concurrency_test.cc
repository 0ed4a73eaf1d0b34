// One kernel object, many threads: Run() keeps no state of its own.
#include <functional>
#include <thread>

#include <catch2/catch.hpp>

#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// Runs `kernel` from several threads at once, each on its own inputs, and
// checks every result against a run of the same inputs on one thread.
void CheckConcurrentRuns(const Node& node, const std::function<std::vector<Tensor>(std::mt19937&)>& make_inputs) {
  std::unique_ptr<device::Kernel> kernel = CreateCpuKernel(node);
  constexpr int kThreads = 4;
  std::mt19937 rng(60);
  std::vector<std::vector<Tensor>> inputs, expected(kThreads), actual(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    inputs.push_back(make_inputs(rng));
    expected[t] = RunKernel(*kernel, node, inputs[t]);
  }
  for (int round = 0; round < 5; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] { actual[t] = RunKernel(*kernel, node, inputs[t]); });
    }
    for (auto& thread : threads) thread.join();
    for (int t = 0; t < kThreads; ++t) CheckClose(actual[t][0], ToDoubles(expected[t][0]), 0, 0);
  }
}

}  // namespace

TEST_CASE("a Conv2D kernel runs concurrently from several threads", "[device][concurrency]") {
  std::mt19937 rng(61);
  Graph g;
  Node* node = g.AddNode("Conv2D", "conv", {g.AddInput("x", DataType::kFloat, {1, 8, 16, 16}),
                                            g.AddConstant("w", RandomTensor(DataType::kFloat, {8, 8, 3, 3}, rng))});
  node->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  node->attrs().Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  node->attrs().Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
  node->attrs().Set("groups", int64_t{1});
  node->attrs().Set("data_format", std::string("NCHW"));
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {1, 8, 16, 16});
  CheckConcurrentRuns(*node, [](std::mt19937& r) {
    return std::vector<Tensor>{RandomTensor(DataType::kFloat, {1, 8, 16, 16}, r)};
  });
}

TEST_CASE("a BatchMatMulV2 kernel runs concurrently from several threads", "[device][concurrency]") {
  Graph g;
  Node* node = g.AddNode("BatchMatMulV2", "bmm", {g.AddInput("a", DataType::kFloat, {4, 32, 48}),
                                                  g.AddInput("b", DataType::kFloat, {4, 48, 24})});
  node->attrs().Set("adj_x1", false);
  node->attrs().Set("adj_x2", false);
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {4, 32, 24});
  CheckConcurrentRuns(*node, [](std::mt19937& r) {
    return std::vector<Tensor>{RandomTensor(DataType::kFloat, {4, 32, 48}, r),
                               RandomTensor(DataType::kFloat, {4, 48, 24}, r)};
  });
}
