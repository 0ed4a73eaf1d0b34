// Reductions over axis sets and TransposeD against float64 loops.
#include <algorithm>
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

std::vector<double> ReferenceReduce(const std::string& op, const std::vector<double>& x, const std::vector<int64_t>& dims,
                                    const std::vector<int64_t>& axes, std::vector<int64_t>& out_dims) {
  std::vector<bool> reduced(dims.size(), axes.empty());
  for (int64_t a : axes) reduced[a < 0 ? a + dims.size() : a] = true;
  out_dims.clear();
  for (size_t d = 0; d < dims.size(); ++d) out_dims.push_back(reduced[d] ? 1 : dims[d]);
  int64_t out_n = 1;
  for (int64_t d : out_dims) out_n *= d;
  const bool is_max = op == "ReduceMaxD", is_min = op == "ReduceMinD", is_prod = op == "ReduceProdD";
  std::vector<double> acc(out_n, is_max ? -1e300 : is_min ? 1e300 : is_prod ? 1.0 : 0.0);
  std::vector<int64_t> count(out_n, 0);
  for (size_t i = 0; i < x.size(); ++i) {
    auto index = Unravel(static_cast<int64_t>(i), dims);
    for (size_t d = 0; d < dims.size(); ++d) {
      if (reduced[d]) index[d] = 0;
    }
    const int64_t o = Ravel(index, out_dims);
    double& a = acc[o];
    a = is_max ? std::max(a, x[i]) : is_min ? std::min(a, x[i]) : is_prod ? a * x[i] : a + x[i];
    ++count[o];
  }
  if (op == "ReduceMeanD") {
    for (int64_t o = 0; o < out_n; ++o) acc[o] /= static_cast<double>(count[o]);
  }
  return acc;
}

}  // namespace

TEST_CASE("reductions over single, several and all axes", "[device][reduce]") {
  std::mt19937 rng(40);
  const Shape shape{4, 3, 5, 6};
  const std::vector<std::vector<int64_t>> axis_sets = {{3}, {0}, {1, 2}, {0, 2}, {-1, 1}, {0, 1, 2, 3}, {}, {2}};
  for (DataType dtype : {DataType::kFloat, DataType::kInt64}) {
    for (const char* op : {"ReduceSumD", "ReduceMeanD", "ReduceMaxD", "ReduceMinD", "ReduceProdD"}) {
      if (dtype == DataType::kInt64 && std::string(op) == "ReduceMeanD") continue;
      // Products of many values stay finite with values near 1.
      const bool prod = std::string(op) == "ReduceProdD";
      Tensor x = dtype == DataType::kFloat ? RandomTensor(dtype, shape, rng, prod ? 0.8 : -5, prod ? 1.2 : 5)
                                           : RandomTensor(dtype, shape, rng, prod ? -1 : -50, prod ? 3 : 50);
      for (const auto& axes : axis_sets) {
        for (bool keep_dims : {false, true}) {
          std::vector<int64_t> kept_dims;
          const std::vector<double> expected = ReferenceReduce(op, ToDoubles(x), shape.dims(), axes, kept_dims);
          std::vector<int64_t> out_dims;
          for (size_t d = 0; d < kept_dims.size(); ++d) {
            const bool reduced = axes.empty() || std::any_of(axes.begin(), axes.end(), [&](int64_t a) {
                                   return (a < 0 ? a + 4 : a) == static_cast<int64_t>(d);
                                 });
            if (keep_dims || !reduced) out_dims.push_back(kept_dims[d]);
          }
          Graph g;
          Node* node = g.AddNode(op, "reduce", {g.AddInput("x", dtype, shape)});
          node->attrs().Set("axes", axes);
          node->attrs().Set("keep_dims", keep_dims);
          SetOutput(node, 0, dtype, Shape(out_dims));
          INFO(op << " " << DataTypeName(dtype) << " axes " << axes.size() << " keep " << keep_dims);
          CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-5);
        }
      }
    }
  }
}

TEST_CASE("reduction with a bad axis fails naming the node and attribute", "[device][reduce]") {
  Graph g;
  Node* node = g.AddNode("ReduceSumD", "sum1", {g.AddInput("x", DataType::kFloat, {2, 3})});
  node->attrs().Set("axes", std::vector<int64_t>{2});
  node->attrs().Set("keep_dims", false);
  SetOutput(node, 0, DataType::kFloat, {2});
  CHECK_THROWS_WITH(RunCpuKernel(*node, {Tensor(DataType::kFloat, {2, 3})}),
                    Catch::Contains("sum1") && Catch::Contains("axes"));
}

TEST_CASE("TransposeD permutes any rank and dtype", "[device][transpose]") {
  std::mt19937 rng(41);
  struct Case {
    Shape shape;
    std::vector<int64_t> perm;
  };
  for (const Case& c : std::vector<Case>{{{5, 7}, {1, 0}},
                                         {{2, 3, 4, 5}, {0, 2, 1, 3}},  // attention head split: inner kept
                                         {{2, 3, 4, 5}, {3, 2, 1, 0}},
                                         {{2, 1, 4, 3}, {2, 0, 3, 1}},  // size-1 axis
                                         {{3, 4, 5}, {1, 2, 0}},
                                         {{2, 3, 4}, {0, 2, 1}},        // batched 2-D tiles
                                         {{4, 3, 5, 2}, {1, 3, 0, 2}},  // tiles with other dims around
                                         {{200, 300}, {1, 0}},          // parallel path
                                         {{70, 3, 90}, {2, 1, 0}},      // partial tiles, parallel
                                         {{6}, {0}}}) {
    for (DataType dtype : {DataType::kFloat, DataType::kInt64, DataType::kUInt8}) {
      Tensor x = RandomTensor(dtype, c.shape, rng, 0, 100);
      std::vector<int64_t> out_dims;
      for (int64_t p : c.perm) out_dims.push_back(c.shape.dim(p));
      const auto xd = ToDoubles(x);
      std::vector<double> expected;
      for (int64_t i = 0; i < x.num_elements(); ++i) {
        const auto out_index = Unravel(i, out_dims);
        std::vector<int64_t> in_index(c.perm.size());
        for (size_t k = 0; k < c.perm.size(); ++k) in_index[c.perm[k]] = out_index[k];
        expected.push_back(xd[Ravel(in_index, c.shape.dims())]);
      }
      Graph g;
      Node* node = g.AddNode("TransposeD", "t", {g.AddInput("x", dtype, c.shape)});
      node->attrs().Set("perm", c.perm);
      SetOutput(node, 0, dtype, Shape(out_dims));
      INFO(c.shape.ToString() << " " << DataTypeName(dtype));
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
    }
  }
}
