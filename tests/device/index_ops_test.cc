// GatherElements, GatherNd, ScatterElements, ScatterNdUpdate, TopKV2,
// ArgMaxV2/ArgMinV2, Cumsum, NonZero, ReverseSequence and Unique against naive
// references.
#include <algorithm>
#include <numeric>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

Tensor Int64s(Shape shape, const std::vector<int64_t>& values) {
  return Tensor::FromVector(DataType::kInt64, std::move(shape), values);
}

}  // namespace

TEST_CASE("GatherElements picks along dim with negative indices", "[device][gather_elements]") {
  std::mt19937 rng(20);
  const Tensor x = RandomTensor(DataType::kInt8, Shape{3, 4}, rng, -100, 100);
  const Tensor indices = Int64s(Shape{2, 4}, {0, -1, 2, 1, 3, 0, -4, 2});
  Graph g;
  Node* node = g.AddNode("GatherElements", "ge",
                         {g.AddInput("x", DataType::kInt8, x.shape()), g.AddInput("i", DataType::kInt64, Shape{2, 4})});
  node->attrs().Set("dim", int64_t{1});
  SetOutput(node, 0, DataType::kInt8, Shape{2, 4});
  const auto xs = ToDoubles(x);
  const auto is = indices.ToInt64Vector();
  std::vector<double> expected;
  for (int64_t i = 0; i < 8; ++i) expected.push_back(xs[(i / 4) * 4 + (is[i] + 4) % 4]);
  CheckClose(RunCpuKernel(*node, {x, indices})[0], expected, 0, 0);

  const Tensor bad = Int64s(Shape{2, 4}, {0, 0, 0, 0, 0, 0, 0, 4});
  REQUIRE_THROWS_AS(RunCpuKernel(*node, {x, bad}), Error);
}

TEST_CASE("GatherNd with and without batch_dims", "[device][gather_nd]") {
  std::mt19937 rng(21);
  const Tensor x = RandomTensor(DataType::kFloat, Shape{2, 3, 4}, rng);
  const auto xs = ToDoubles(x);
  {
    Graph g;
    Node* node = g.AddNode("GatherNd", "gnd",
                           {g.AddInput("x", DataType::kFloat, x.shape()), g.AddInput("i", DataType::kInt64, Shape{3, 2})});
    node->attrs().Set("batch_dims", int64_t{0});
    SetOutput(node, 0, DataType::kFloat, Shape{3, 4});
    const std::vector<int64_t> idx = {1, 2, 0, -1, 1, 0};
    std::vector<double> expected;
    for (int t = 0; t < 3; ++t) {
      const int64_t a = (idx[2 * t] + 2) % 2, b = (idx[2 * t + 1] + 3) % 3;
      for (int64_t c = 0; c < 4; ++c) expected.push_back(xs[(a * 3 + b) * 4 + c]);
    }
    CheckClose(RunCpuKernel(*node, {x, Int64s(Shape{3, 2}, idx)})[0], expected, 0, 0);
  }
  {
    Graph g;
    Node* node = g.AddNode("GatherNd", "gnd",
                           {g.AddInput("x", DataType::kFloat, x.shape()), g.AddInput("i", DataType::kInt64, Shape{2, 1, 2})});
    node->attrs().Set("batch_dims", int64_t{1});
    SetOutput(node, 0, DataType::kFloat, Shape{2, 1});
    const std::vector<int64_t> idx = {2, 3, 0, 1};
    CheckClose(RunCpuKernel(*node, {x, Int64s(Shape{2, 1, 2}, idx)})[0], {xs[0 * 12 + 2 * 4 + 3], xs[12 + 1]}, 0, 0);
  }
}

TEST_CASE("ScatterElements and ScatterNdUpdate apply updates in order with reductions", "[device][scatter]") {
  const Tensor data = Tensor::FromVector(DataType::kFloat, Shape{2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  const Tensor updates = Tensor::FromVector(DataType::kFloat, Shape{2, 2}, std::vector<float>{10, 20, 30, 40});
  const Tensor indices = Int64s(Shape{2, 2}, {2, 2, -3, 1});
  for (const std::string reduction : {"none", "add", "mul", "max"}) {
    Graph g;
    Node* node = g.AddNode("ScatterElements", "se",
                           {g.AddInput("d", DataType::kFloat, Shape{2, 3}), g.AddInput("i", DataType::kInt64, Shape{2, 2}),
                            g.AddInput("u", DataType::kFloat, Shape{2, 2})});
    node->attrs().Set("axis", int64_t{1});
    node->attrs().Set("reduction", reduction);
    SetOutput(node, 0, DataType::kFloat, Shape{2, 3});
    std::vector<double> expected = {1, 2, 3, 4, 5, 6};
    const std::vector<int64_t> at = {2, 2, 3, 4};  // flat positions of the four updates
    for (size_t i = 0; i < 4; ++i) {
      double& dst = expected[at[i]];
      const double u = ToDoubles(updates)[i];
      dst = reduction == "none" ? u : reduction == "add" ? dst + u : reduction == "mul" ? dst * u : std::max(dst, u);
    }
    INFO(reduction);
    CheckClose(RunCpuKernel(*node, {data, indices, updates})[0], expected, 0, 0);
  }
  {
    Graph g;
    Node* node = g.AddNode("ScatterNdUpdate", "snd",
                           {g.AddInput("d", DataType::kFloat, Shape{2, 3}), g.AddInput("i", DataType::kInt64, Shape{2, 1}),
                            g.AddInput("u", DataType::kFloat, Shape{2, 3})});
    node->attrs().Set("reduction", std::string("add"));
    SetOutput(node, 0, DataType::kFloat, Shape{2, 3});
    const Tensor rows = Tensor::FromVector(DataType::kFloat, Shape{2, 3}, std::vector<float>{1, 1, 1, 2, 2, 2});
    CheckClose(RunCpuKernel(*node, {data, Int64s(Shape{2, 1}, {1, 1}), rows})[0], {1, 2, 3, 7, 8, 9}, 0, 0);
    REQUIRE_THROWS_AS(RunCpuKernel(*node, {data, Int64s(Shape{2, 1}, {1, 2}), rows}), Error);
  }
}

TEST_CASE("TopKV2 orders by value, ties by index, ArgMax/ArgMin pick first or last", "[device][topk]") {
  const Tensor x = Tensor::FromVector(DataType::kInt32, Shape{2, 5}, std::vector<int32_t>{3, 1, 3, 2, 1, 0, 5, 5, 5, 4});
  for (bool largest : {true, false}) {
    Graph g;
    Node* node = g.AddNode("TopKV2", "topk",
                           {g.AddInput("x", DataType::kInt32, Shape{2, 5}), g.AddConstant("k", Int64s(Shape{1}, {3}))},
                           2);
    node->attrs().Set("dim", int64_t{1});
    node->attrs().Set("largest", largest);
    node->attrs().Set("sorted", true);
    SetOutput(node, 0, DataType::kInt32, Shape{2, 3});
    SetOutput(node, 1, DataType::kInt64, Shape{2, 3});
    // Naive: stable sort of indices by value.
    std::vector<double> values, indices;
    const auto xs = ToDoubles(x);
    for (int r = 0; r < 2; ++r) {
      std::vector<int> order(5);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return largest ? xs[r * 5 + a] > xs[r * 5 + b] : xs[r * 5 + a] < xs[r * 5 + b];
      });
      for (int j = 0; j < 3; ++j) {
        values.push_back(xs[r * 5 + order[j]]);
        indices.push_back(order[j]);
      }
    }
    INFO("largest " << largest);
    auto out = RunCpuKernel(*node, {x, Tensor()});
    CheckClose(out[0], values, 0, 0);
    CheckClose(out[1], indices, 0, 0);
  }
  for (const char* op : {"ArgMaxV2", "ArgMinV2"}) {
    for (bool last : {false, true}) {
      Graph g;
      Node* node = g.AddNode(op, "arg",
                             {g.AddInput("x", DataType::kInt32, Shape{2, 5}),
                              g.AddConstant("d", Tensor::FromVector(DataType::kInt64, Shape{}, std::vector<int64_t>{-1}))});
      node->attrs().Set("dtype", static_cast<int64_t>(DataType::kInt64));
      node->attrs().Set("select_last_index", last);
      SetOutput(node, 0, DataType::kInt64, Shape{2});
      const bool max = std::string(op) == "ArgMaxV2";
      const std::vector<double> expected =
          max ? (last ? std::vector<double>{2, 3} : std::vector<double>{0, 1})
              : (last ? std::vector<double>{4, 0} : std::vector<double>{1, 0});
      INFO(op << " last " << last);
      CheckClose(RunCpuKernel(*node, {x, Tensor()})[0], expected, 0, 0);
    }
  }
}

TEST_CASE("Cumsum: exclusive and reverse along a run-time axis", "[device][cumsum]") {
  std::mt19937 rng(22);
  const Tensor x = RandomTensor(DataType::kDouble, Shape{3, 4}, rng);
  const auto xs = ToDoubles(x);
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      Graph g;
      Node* node = g.AddNode("Cumsum", "cs",
                             {g.AddInput("x", DataType::kDouble, x.shape()), g.AddInput("a", DataType::kInt64, Shape{})});
      node->attrs().Set("exclusive", exclusive);
      node->attrs().Set("reverse", reverse);
      SetOutput(node, 0, DataType::kDouble, x.shape());
      std::vector<double> expected(12, 0.0);
      for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 4; ++c) {
          for (int j = 0; j < 4; ++j) {
            const bool in = reverse ? (exclusive ? j > c : j >= c) : (exclusive ? j < c : j <= c);
            if (in) expected[r * 4 + c] += xs[r * 4 + j];
          }
        }
      }
      INFO("exclusive " << exclusive << " reverse " << reverse);
      CheckClose(RunCpuKernel(*node, {x, Int64s(Shape{}, {-1})})[0], expected, 1e-12, 1e-12);
    }
  }
}

TEST_CASE("NonZero lists indices row-major and checks the inferred count", "[device][nonzero]") {
  const Tensor x = Tensor::FromVector(DataType::kFloat, Shape{2, 3}, std::vector<float>{0, 1.5f, -0.0f, 2, 0, 3});
  Graph g;
  Node* node = g.AddNode("NonZero", "nz", {g.AddInput("x", DataType::kFloat, x.shape())});
  node->attrs().Set("dtype", static_cast<int64_t>(DataType::kInt64));
  SetOutput(node, 0, DataType::kInt64, Shape{2, 3});
  CheckClose(RunCpuKernel(*node, {x})[0], {0, 1, 1, 1, 0, 2}, 0, 0);
  const Tensor more = Tensor::FromVector(DataType::kFloat, Shape{2, 3}, std::vector<float>{1, 1, 1, 1, 1, 1});
  REQUIRE_THROWS_AS(RunCpuKernel(*node, {more}), Error);
}

TEST_CASE("ReverseSequence reverses each batch entry's prefix", "[device][reverse_sequence]") {
  std::mt19937 rng(23);
  const Tensor x = RandomTensor(DataType::kInt64, Shape{4, 3, 2}, rng, -100, 100);  // [time, batch, feature]
  const auto xs = ToDoubles(x);
  const std::vector<int64_t> lengths = {4, 1, 2};
  Graph g;
  Node* node = g.AddNode("ReverseSequence", "rs",
                         {g.AddInput("x", DataType::kInt64, x.shape()), g.AddInput("l", DataType::kInt64, Shape{3})});
  node->attrs().Set("seq_dim", int64_t{0});
  node->attrs().Set("batch_dim", int64_t{1});
  SetOutput(node, 0, DataType::kInt64, x.shape());
  std::vector<double> expected;
  for (int64_t i = 0; i < 24; ++i) {
    auto p = Unravel(i, {4, 3, 2});
    if (p[0] < lengths[p[1]]) p[0] = lengths[p[1]] - 1 - p[0];
    expected.push_back(xs[Ravel(p, {4, 3, 2})]);
  }
  CheckClose(RunCpuKernel(*node, {x, Int64s(Shape{3}, lengths)})[0], expected, 0, 0);
}

TEST_CASE("Unique finds slices in first-occurrence or sorted order", "[device][unique]") {
  // Rows 0 and 2 are equal; row 1 sorts first.
  const Tensor x = Tensor::FromVector(DataType::kInt32, Shape{3, 2}, std::vector<int32_t>{2, 1, 0, 5, 2, 1});
  for (bool sorted : {false, true}) {
    Graph g;
    Node* node = g.AddNode("Unique", "u", {g.AddInput("x", DataType::kInt32, x.shape())}, 4);
    node->attrs().Set("sorted", sorted);
    node->attrs().Set("axis", std::vector<int64_t>{0});
    SetOutput(node, 0, DataType::kInt32, Shape{2, 2});
    SetOutput(node, 1, DataType::kInt64, Shape{2});
    SetOutput(node, 2, DataType::kInt64, Shape{3});
    SetOutput(node, 3, DataType::kInt64, Shape{2});
    INFO("sorted " << sorted);
    auto out = RunCpuKernel(*node, {x});
    CheckClose(out[0], sorted ? std::vector<double>{0, 5, 2, 1} : std::vector<double>{2, 1, 0, 5}, 0, 0);
    CheckClose(out[1], sorted ? std::vector<double>{1, 0} : std::vector<double>{0, 1}, 0, 0);
    CheckClose(out[2], sorted ? std::vector<double>{1, 0, 1} : std::vector<double>{0, 1, 0}, 0, 0);
    CheckClose(out[3], sorted ? std::vector<double>{1, 2} : std::vector<double>{2, 1}, 0, 0);
  }
}
