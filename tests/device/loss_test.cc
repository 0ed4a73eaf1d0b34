// NLLLoss against a naive float64 reference: every reduction, optional
// weight, ignore_index (negative too), k-dimensional inputs, half types.
#include <cmath>
#include <limits>
#include <string>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/ops/loss_ops.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

struct NllCase {
  std::vector<int64_t> x_dims;  // [N, C, d...]
  std::string reduction;
  bool weighted = false;
  int64_t ignore_index = kNllLossNoIgnoreIndex;
};

// ONNX's definition, element by element: loss[n, d] = -w[t] * x[n, t, d].
std::vector<double> Reference(const NllCase& c, const std::vector<double>& x, const std::vector<int64_t>& target,
                              const std::vector<double>& weight) {
  const int64_t n_count = c.x_dims[0], classes = c.x_dims[1];
  int64_t inner = 1;
  for (size_t i = 2; i < c.x_dims.size(); ++i) inner *= c.x_dims[i];
  std::vector<double> loss;
  double total = 0, total_weight = 0;
  for (int64_t n = 0; n < n_count; ++n) {
    for (int64_t d = 0; d < inner; ++d) {
      const int64_t t = target[n * inner + d];
      const double w = t == c.ignore_index ? 0.0 : (weight.empty() ? 1.0 : weight[t]);
      const double l = t == c.ignore_index ? 0.0 : -w * x[(n * classes + t) * inner + d];
      loss.push_back(l);
      total += l;
      total_weight += w;
    }
  }
  if (c.reduction == "sum") return {total};
  if (c.reduction == "mean") return {total / total_weight};
  return loss;
}

// RandomTensor has no float16: float32 values rounded to it.
Tensor RandomFloats(DataType dtype, const Shape& shape, std::mt19937& rng, double lo, double hi) {
  if (dtype != DataType::kFloat16) return RandomTensor(dtype, shape, rng, lo, hi);
  const Tensor f = RandomTensor(DataType::kFloat, shape, rng, lo, hi);
  Tensor h(DataType::kFloat16, shape);
  for (int64_t i = 0; i < f.num_elements(); ++i) h.data_as<_Float16>()[i] = static_cast<_Float16>(f.values<float>()[i]);
  return h;
}

Tensor RandomTargets(const Shape& shape, int64_t classes, int64_t ignore_index, std::mt19937& rng) {
  std::vector<int64_t> values(shape.NumElements());
  std::uniform_int_distribution<int64_t> pick(0, classes - 1);
  const bool ignores = ignore_index != kNllLossNoIgnoreIndex;
  for (size_t i = 0; i < values.size(); ++i) values[i] = ignores && i % 3 == 1 ? ignore_index : pick(rng);
  return Tensor::FromVector(DataType::kInt64, shape, values);
}

Node* AddNllLoss(Graph& g, const NllCase& c, DataType dtype, const Shape& target_shape, int64_t classes) {
  std::vector<Value*> inputs = {g.AddInput("x", dtype, Shape(c.x_dims)),
                                g.AddInput("target", DataType::kInt64, target_shape)};
  if (c.weighted) inputs.push_back(g.AddInput("weight", dtype, Shape{classes}));
  Node* node = g.AddNode("NLLLoss", "nll", inputs);
  node->attrs().Set("reduction", c.reduction);
  node->attrs().Set("ignore_index", c.ignore_index);
  SetOutput(node, 0, dtype, c.reduction == "none" ? target_shape : Shape{});
  return node;
}

void CheckCase(const NllCase& c, DataType dtype, double tolerance, std::mt19937& rng) {
  std::vector<int64_t> target_dims = c.x_dims;
  target_dims.erase(target_dims.begin() + 1);
  const Shape target_shape(target_dims);
  const int64_t classes = c.x_dims[1];
  Tensor x = RandomFloats(dtype, Shape(c.x_dims), rng, -3, 0);
  Tensor target = RandomTargets(target_shape, classes, c.ignore_index, rng);
  Tensor weight = c.weighted ? RandomFloats(dtype, Shape{classes}, rng, 0.1, 2) : Tensor();
  const auto t = target.values<int64_t>();
  const std::vector<double> expected =
      Reference(c, ToDoubles(x), {t.begin(), t.end()}, c.weighted ? ToDoubles(weight) : std::vector<double>{});
  Graph g;
  Node* node = AddNllLoss(g, c, dtype, target_shape, classes);
  std::vector<Tensor> inputs = {x, target};
  if (c.weighted) inputs.push_back(weight);
  INFO(c.reduction << " weighted " << c.weighted << " ignore " << c.ignore_index << " " << DataTypeName(dtype)
                   << " " << Shape(c.x_dims).ToString());
  CheckClose(RunCpuKernel(*node, inputs)[0], expected, tolerance, tolerance);
}

}  // namespace

TEST_CASE("NLLLoss matches the float64 reference", "[device][loss]") {
  std::mt19937 rng(12);
  const std::vector<NllCase> cases = {
      {{5, 4}, "mean"},
      {{5, 4}, "mean", true},
      {{3, 5, 2}, "mean", true, 1},
      {{3, 5, 2}, "mean", true, -1},  // a negative ignore_index never matches a class
      {{2, 3, 4, 5}, "sum", true, 2},
      {{2, 3, 4, 5}, "sum"},
      {{2, 3, 2, 2, 3}, "none", false, -5},
      {{2, 3, 2, 2, 3}, "none", true, 0},
      {{4, 6, 3}, "mean", false, 4},
  };
  for (const NllCase& c : cases) {
    CheckCase(c, DataType::kFloat, 1e-5, rng);
    CheckCase(c, DataType::kDouble, 1e-12, rng);
    CheckCase(c, DataType::kFloat16, 1e-2, rng);
  }
}

TEST_CASE("NLLLoss mean with every target ignored is NaN, as in ONNX", "[device][loss]") {
  const NllCase c{{2, 3}, "mean", false, 1};
  Graph g;
  Node* node = AddNllLoss(g, c, DataType::kFloat, Shape{2}, 3);
  Tensor x = Tensor::FromVector(DataType::kFloat, Shape{2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor target = Tensor::FromVector(DataType::kInt64, Shape{2}, std::vector<int64_t>{1, 1});
  CHECK(std::isnan(RunCpuKernel(*node, {x, target})[0].values<float>()[0]));
}

TEST_CASE("NLLLoss rejects a target outside the range 0..C-1 naming the node", "[device][loss]") {
  const NllCase c{{2, 3}, "sum"};
  Graph g;
  Node* node = AddNllLoss(g, c, DataType::kFloat, Shape{2}, 3);
  Tensor x(DataType::kFloat, Shape{2, 3});
  for (int64_t bad : {3, -1}) {
    Tensor target = Tensor::FromVector(DataType::kInt64, Shape{2}, std::vector<int64_t>{0, bad});
    CHECK_THROWS_WITH(RunCpuKernel(*node, {x, target}), Catch::Contains("nll") && Catch::Contains("out of range"));
  }
}
