// The norm-like reductions (ReduceL1D, ReduceL2D, ReduceSumSquareD,
// ReduceLogSumD, ReduceLogSumExpD), InstanceNorm and LRN against float64 loops;
// the BatchNorm and InstanceNorm kernels' refusals.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// Every output cell folds its input cells with `step`, then `finish`.
template <typename Step, typename Finish>
std::vector<double> ReferenceReduce(const std::vector<double>& x, const std::vector<int64_t>& dims,
                                    const std::vector<bool>& reduced, Step step, Finish finish) {
  std::vector<int64_t> out_dims;
  for (size_t d = 0; d < dims.size(); ++d) out_dims.push_back(reduced[d] ? 1 : dims[d]);
  int64_t out_n = 1;
  for (int64_t d : out_dims) out_n *= d;
  std::vector<std::vector<double>> cells(out_n);
  for (size_t i = 0; i < x.size(); ++i) {
    auto index = Unravel(static_cast<int64_t>(i), dims);
    for (size_t d = 0; d < dims.size(); ++d) {
      if (reduced[d]) index[d] = 0;
    }
    cells[Ravel(index, out_dims)].push_back(x[i]);
  }
  std::vector<double> out;
  for (const auto& cell : cells) {
    double acc = 0;
    for (double v : cell) acc = step(acc, v);
    out.push_back(finish(acc));
  }
  return out;
}

std::vector<double> Reference(const std::string& op, const std::vector<double>& x, const std::vector<int64_t>& dims,
                              const std::vector<bool>& reduced) {
  auto same = [](double a) { return a; };
  auto sum = [](double a, double v) { return a + v; };
  if (op == "ReduceL1D") return ReferenceReduce(x, dims, reduced, [](double a, double v) { return a + std::fabs(v); }, same);
  if (op == "ReduceL2D") {
    return ReferenceReduce(x, dims, reduced, [](double a, double v) { return a + v * v; },
                           [](double a) { return std::sqrt(a); });
  }
  if (op == "ReduceSumSquareD") return ReferenceReduce(x, dims, reduced, [](double a, double v) { return a + v * v; }, same);
  if (op == "ReduceLogSumD") return ReferenceReduce(x, dims, reduced, sum, [](double a) { return std::log(a); });
  return ReferenceReduce(x, dims, reduced, [](double a, double v) { return a + std::exp(v); },
                         [](double a) { return std::log(a); });
}

}  // namespace

TEST_CASE("norm-like reductions over single, several and all axes", "[device][reduce]") {
  std::mt19937 rng(41);
  const Shape shape{3, 4, 5};
  const std::vector<std::vector<int64_t>> axis_sets = {{2}, {0}, {0, 2}, {-2}, {}};
  for (const char* op : {"ReduceL1D", "ReduceL2D", "ReduceSumSquareD", "ReduceLogSumD", "ReduceLogSumExpD"}) {
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      // LogSum needs positive sums; LogSumExp is checked with large values that overflow a naive exp in float.
      const bool log_sum = std::string(op) == "ReduceLogSumD";
      Tensor x = RandomTensor(dtype, shape, rng, log_sum ? 0.1 : -5, 5);
      for (const auto& axes : axis_sets) {
        std::vector<bool> reduced(3, axes.empty());
        std::vector<int64_t> out_dims;
        for (int64_t a : axes) reduced[a < 0 ? a + 3 : a] = true;
        for (size_t d = 0; d < 3; ++d) {
          if (!reduced[d]) out_dims.push_back(shape.dim(d));
        }
        Graph g;
        Node* node = g.AddNode(op, "reduce", {g.AddInput("x", dtype, shape)});
        node->attrs().Set("axes", axes);
        node->attrs().Set("keep_dims", false);
        SetOutput(node, 0, dtype, Shape(out_dims));
        INFO(op << " " << DataTypeName(dtype) << " axes " << axes.size());
        CheckClose(RunCpuKernel(*node, {x})[0], Reference(op, ToDoubles(x), shape.dims(), reduced), 1e-5, 1e-6);
      }
    }
  }
}

TEST_CASE("ReduceLogSumExpD stays finite where exp overflows float", "[device][reduce]") {
  Graph g;
  Node* node = g.AddNode("ReduceLogSumExpD", "lse", {g.AddInput("x", DataType::kFloat, Shape{3})});
  node->attrs().Set("axes", std::vector<int64_t>{0});
  node->attrs().Set("keep_dims", false);
  SetOutput(node, 0, DataType::kFloat, Shape{});
  Tensor x = Tensor::FromVector(DataType::kFloat, Shape{3}, std::vector<float>{1000.0f, 1000.0f, -1000.0f});
  CheckClose(RunCpuKernel(*node, {x})[0], {1000.0 + std::log(2.0)}, 1e-6, 1e-6);
}

TEST_CASE("integer ReduceL1D and ReduceSumSquareD stay exact", "[device][reduce]") {
  std::mt19937 rng(42);
  for (DataType dtype : {DataType::kInt32, DataType::kInt64}) {
    Tensor x = RandomTensor(dtype, Shape{4, 6}, rng, -100, 100);
    for (const char* op : {"ReduceL1D", "ReduceSumSquareD"}) {
      Graph g;
      Node* node = g.AddNode(op, "reduce", {g.AddInput("x", dtype, x.shape())});
      node->attrs().Set("axes", std::vector<int64_t>{1});
      node->attrs().Set("keep_dims", true);
      SetOutput(node, 0, dtype, Shape{4, 1});
      CheckClose(RunCpuKernel(*node, {x})[0], Reference(op, ToDoubles(x), {4, 6}, {false, true}), 0, 0);
    }
  }
}

TEST_CASE("InstanceNorm normalizes each plane, then scales per channel", "[device][norm]") {
  std::mt19937 rng(43);
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    for (const Shape& shape : {Shape{2, 3, 4, 5}, Shape{1, 2, 7}, Shape{2, 2, 2, 3, 3}}) {
      const int64_t n = shape.dim(0), c = shape.dim(1), spatial = shape.NumElements() / (n * c);
      Tensor x = RandomTensor(dtype, shape, rng, -3, 3);
      Tensor gamma = RandomTensor(dtype, Shape{c}, rng, 0.5, 2);
      Tensor beta = RandomTensor(dtype, Shape{c}, rng, -1, 1);
      Graph g;
      Node* node = g.AddNode("InstanceNorm", "inorm",
                             {g.AddInput("x", dtype, shape), g.AddInput("gamma", dtype, Shape{c}),
                              g.AddInput("beta", dtype, Shape{c})});
      node->attrs().Set("epsilon", 1e-5f);
      node->attrs().Set("data_format", std::string("NCHW"));
      SetOutput(node, 0, dtype, shape);
      const auto xd = ToDoubles(x), gd = ToDoubles(gamma), bd = ToDoubles(beta);
      std::vector<double> expected(xd.size());
      for (int64_t p = 0; p < n * c; ++p) {
        double mean = 0, var = 0;
        for (int64_t i = 0; i < spatial; ++i) mean += xd[p * spatial + i] / spatial;
        for (int64_t i = 0; i < spatial; ++i) var += (xd[p * spatial + i] - mean) * (xd[p * spatial + i] - mean) / spatial;
        for (int64_t i = 0; i < spatial; ++i) {
          expected[p * spatial + i] = (xd[p * spatial + i] - mean) / std::sqrt(var + 1e-5) * gd[p % c] + bd[p % c];
        }
      }
      INFO(DataTypeName(dtype) << " " << shape.ToString());
      CheckClose(RunCpuKernel(*node, {x, gamma, beta})[0], expected, 1e-5, 1e-5);
    }
  }
}

TEST_CASE("LRN sums squares over a clipped channel window", "[device][norm]") {
  std::mt19937 rng(44);
  // Radii above 16 take the sliding window; the last spans every channel from any one.
  const Shape shape{2, 40, 3, 2};
  for (int64_t radius : {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{4}, int64_t{17}, int64_t{30},
                         std::numeric_limits<int64_t>::max()}) {
    Tensor x = RandomTensor(DataType::kFloat, shape, rng, -2, 2);
    Graph g;
    Node* node = g.AddNode("LRN", "lrn", {g.AddInput("x", DataType::kFloat, shape)});
    node->attrs().Set("depth_radius", radius);
    node->attrs().Set("bias", 2.0f);
    node->attrs().Set("alpha", 0.3f);
    node->attrs().Set("beta", 0.75f);
    node->attrs().Set("norm_region", std::string("ACROSS_CHANNELS"));
    SetOutput(node, 0, DataType::kFloat, shape);
    const auto xd = ToDoubles(x);
    std::vector<double> expected(xd.size());
    for (size_t i = 0; i < xd.size(); ++i) {
      auto index = Unravel(static_cast<int64_t>(i), shape.dims());
      double squares = 0;
      const int64_t clipped = std::min<int64_t>(radius, shape.dim(1));
      for (int64_t k = index[1] - clipped; k <= index[1] + clipped; ++k) {
        if (k < 0 || k >= shape.dim(1)) continue;
        auto other = index;
        other[1] = k;
        squares += xd[Ravel(other, shape.dims())] * xd[Ravel(other, shape.dims())];
      }
      expected[i] = xd[i] / std::pow(2.0 + 0.3f * squares, 0.75);
    }
    INFO("radius " << radius);
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-6);
  }
}

TEST_CASE("LRN refuses an unsupported norm_region naming the node", "[device][norm]") {
  Graph g;
  Node* node = g.AddNode("LRN", "bad_lrn", {g.AddInput("x", DataType::kFloat, Shape{1, 3, 2, 2})});
  node->attrs().Set("depth_radius", int64_t{1});
  node->attrs().Set("bias", 1.0f);
  node->attrs().Set("alpha", 1.0f);
  node->attrs().Set("beta", 0.5f);
  node->attrs().Set("norm_region", std::string("WITHIN_CHANNEL"));
  SetOutput(node, 0, DataType::kFloat, Shape{1, 3, 2, 2});
  CHECK_THROWS_WITH(RunCpuKernel(*node, {}), Catch::Contains("bad_lrn") && Catch::Contains("ACROSS_CHANNELS"));
}

// The kernels re-check graph/norm_layout.h's rule: a node that skipped
// inference (as these do) is refused, not read past.
TEST_CASE("BatchNorm and InstanceNorm kernels refuse parameters that are not [C] of x's dtype", "[device][norm]") {
  const Shape x{1, 3, 2, 2};
  auto node_of = [&](const std::string& op, std::vector<std::pair<DataType, Shape>> params, Graph& g) {
    std::vector<Value*> inputs{g.AddInput("x", DataType::kFloat, x)};
    for (auto& [dtype, shape] : params) inputs.push_back(g.AddInput("p" + std::to_string(inputs.size()), dtype, shape));
    Node* node = g.AddNode(op, "bad_norm", inputs);
    OpRegistry::Global().Find(op)->NormalizeAttrs(*node);
    SetOutput(node, 0, DataType::kFloat, x);
    return node;
  };
  const std::pair<DataType, Shape> ok{DataType::kFloat, Shape{3}};
  Graph g1, g2, g3;
  CHECK_THROWS_WITH(RunCpuKernel(*node_of("InstanceNorm", {ok, {DataType::kFloat, Shape{4}}}, g1), {}),
                    Catch::Contains("bad_norm") && Catch::Contains("'beta' has shape [4]; it must be [3]"));
  CHECK_THROWS_WITH(RunCpuKernel(*node_of("BatchNorm", {ok, ok, {DataType::kFloat16, Shape{3}}, ok}, g2), {}),
                    Catch::Contains("'mean' has dtype float16 but x has dtype float32"));
  CHECK_THROWS_WITH(RunCpuKernel(*node_of("BatchNorm", {ok, ok, ok, {DataType::kUndefined, Shape{3}}}, g3), {}),
                    Catch::Contains("'variance'") && Catch::Contains("dtype and dims known"));
}

TEST_CASE("ReduceSum reads its axes input at run time", "[device][reduce]") {
  std::mt19937 rng(45);
  const Shape shape{2, 3, 4};
  Tensor x = RandomTensor(DataType::kFloat, shape, rng);
  const auto xd = ToDoubles(x);
  auto run = [&](const std::vector<int64_t>& axes, bool noop, const Shape& out) {
    Graph g;
    Node* node = g.AddNode("ReduceSum", "sum", {g.AddInput("x", DataType::kFloat, shape),
                                                g.AddInput("axes", DataType::kInt64, Shape{static_cast<int64_t>(axes.size())})});
    node->attrs().Set("keep_dims", true);
    node->attrs().Set("noop_with_empty_axes", noop);
    SetOutput(node, 0, DataType::kFloat, out);
    Tensor axes_tensor = Tensor::FromVector(DataType::kInt64, Shape{static_cast<int64_t>(axes.size())}, axes);
    return RunCpuKernel(*node, {x, axes_tensor})[0];
  };
  auto sum = [](double a, double v) { return a + v; };
  auto same = [](double a) { return a; };
  CheckClose(run({-1, 0}, false, {1, 3, 1}), ReferenceReduce(xd, shape.dims(), {true, false, true}, sum, same), 1e-5, 1e-6);
  CheckClose(run({}, false, {1, 1, 1}), ReferenceReduce(xd, shape.dims(), {true, true, true}, sum, same), 1e-5, 1e-6);
  CheckClose(run({}, true, shape), xd, 0, 0);
  CHECK_THROWS_WITH(run({3}, false, {2, 3, 4}), Catch::Contains("sum") && Catch::Contains("axes"));
}
