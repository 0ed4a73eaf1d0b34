// Unary and broadcasting binary elementwise kernels against float64 loops.
#include <cmath>
#include <functional>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

using Fn1 = std::function<double(double)>;
using Fn2 = std::function<double(double, double)>;

std::vector<double> ReferenceBroadcast(const Tensor& a, const Tensor& b, const std::vector<int64_t>& out_dims,
                                       const Fn2& fn) {
  const std::vector<double> av = ToDoubles(a), bv = ToDoubles(b);
  auto read = [&](const std::vector<double>& values, const Shape& shape, const std::vector<int64_t>& out_index) {
    // Align to the right; a dim of size 1 reads index 0.
    std::vector<int64_t> dims = shape.dims(), index(dims.size());
    const size_t lead = out_index.size() - dims.size();
    for (size_t d = 0; d < dims.size(); ++d) index[d] = dims[d] == 1 ? 0 : out_index[lead + d];
    return values[Ravel(index, dims)];
  };
  int64_t n = 1;
  for (int64_t d : out_dims) n *= d;
  std::vector<double> out;
  for (int64_t i = 0; i < n; ++i) {
    const auto index = Unravel(i, out_dims);
    out.push_back(fn(read(av, a.shape(), index), read(bv, b.shape(), index)));
  }
  return out;
}

Tensor RunBinary(const std::string& op, const Tensor& a, const Tensor& b, const Shape& out) {
  Graph g;
  Node* node = g.AddNode(op, "bin", {g.AddInput("a", a.dtype(), a.shape()), g.AddInput("b", b.dtype(), b.shape())});
  SetOutput(node, 0, a.dtype(), out);
  return RunCpuKernel(*node, {a, b})[0];
}

}  // namespace

TEST_CASE("unary float kernels match the math library in float64", "[device][elementwise]") {
  std::mt19937 rng(1);
  const double sqrt_half = std::sqrt(0.5);
  const std::vector<std::tuple<std::string, Fn1, double, double>> cases = {
      {"Relu", [](double x) { return x > 0 ? x : 0; }, -3, 3},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8},
      {"Tanh", [](double x) { return std::tanh(x); }, -4, 4},
      {"Erf", [](double x) { return std::erf(x); }, -3, 3},
      {"Sqrt", [](double x) { return std::sqrt(x); }, 0.01, 9},
      {"Exp", [](double x) { return std::exp(x); }, -5, 5},
      {"Log", [](double x) { return std::log(x); }, 0.01, 50},
      {"Abs", [](double x) { return std::abs(x); }, -3, 3},
      {"Neg", [](double x) { return -x; }, -3, 3},
      {"Reciprocal", [](double x) { return 1 / x; }, 0.1, 5},
      {"Gelu", [&](double x) { return 0.5 * x * (1 + std::erf(x * sqrt_half)); }, -5, 5},
  };
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    for (const auto& [op, fn, lo, hi] : cases) {
      INFO(op << " " << DataTypeName(dtype));
      // Large enough to take the OpenMP path.
      Tensor x = RandomTensor(dtype, {3, 50000}, rng, lo, hi);
      Graph g;
      Node* node = g.AddNode(op, "u", {g.AddInput("x", dtype, x.shape())});
      SetOutput(node, 0, dtype, x.shape());
      std::vector<double> expected;
      for (double v : ToDoubles(x)) expected.push_back(fn(v));
      CheckClose(RunCpuKernel(*node, {x})[0], expected, dtype == DataType::kFloat ? 2e-6 : 1e-12, 1e-6);
    }
  }
}

TEST_CASE("integer unary kernels: Relu, Abs, Neg", "[device][elementwise]") {
  Tensor x = Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {-5, 0, 3, -1});
  Graph g;
  Value* in = g.AddInput("x", DataType::kInt64, {4});
  for (auto [op, expected] : std::vector<std::pair<std::string, std::vector<double>>>{
           {"Relu", {0, 0, 3, 0}}, {"Abs", {5, 0, 3, 1}}, {"Neg", {5, 0, -3, 1}}}) {
    Node* node = g.AddNode(op, op, {in});
    SetOutput(node, 0, DataType::kInt64, {4});
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
  }
}

TEST_CASE("ClipByValue clamps to scalar bounds", "[device][elementwise]") {
  std::mt19937 rng(2);
  Tensor x = RandomTensor(DataType::kFloat, {7, 9}, rng, -5, 5);
  Graph g;
  Value* lo = g.AddConstant("lo", Tensor::FromVector<float>(DataType::kFloat, {}, {-1.5f}));
  Value* hi = g.AddConstant("hi", Tensor::FromVector<float>(DataType::kFloat, {1}, {2.0f}));
  Node* node = g.AddNode("ClipByValue", "clip", {g.AddInput("x", DataType::kFloat, x.shape()), lo, hi});
  SetOutput(node, 0, DataType::kFloat, x.shape());
  std::vector<double> expected;
  for (double v : ToDoubles(x)) expected.push_back(std::min(std::max(v, -1.5), 2.0));
  CheckClose(RunCpuKernel(*node, {x})[0], expected);

  Value* wide = g.AddConstant("wide", Tensor::FromVector<float>(DataType::kFloat, {2}, {0, 1}));
  Node* bad = g.AddNode("ClipByValue", "bad", {g.AddInput("x2", DataType::kFloat, x.shape()), wide, hi});
  SetOutput(bad, 0, DataType::kFloat, x.shape());
  CHECK_THROWS_WITH(RunCpuKernel(*bad, {x}), Catch::Contains("bad") && Catch::Contains("clip_value_min"));
}

TEST_CASE("binary kernels broadcast like numpy", "[device][elementwise]") {
  std::mt19937 rng(3);
  const std::vector<std::pair<std::string, Fn2>> ops = {
      {"Add", std::plus<double>()},
      {"Sub", std::minus<double>()},
      {"Mul", std::multiplies<double>()},
      {"Div", std::divides<double>()},
      {"Pow", [](double a, double b) { return std::pow(a, b); }},
      {"Maximum", [](double a, double b) { return std::max(a, b); }},
      {"Minimum", [](double a, double b) { return std::min(a, b); }},
  };
  struct Combo {
    Shape a, b, out;
  };
  const std::vector<Combo> combos = {
      {{4, 5}, {4, 5}, {4, 5}},                       // same shape
      {{300, 400}, {300, 400}, {300, 400}},           // same shape, parallel path
      {{3, 4}, {}, {3, 4}},                           // scalar right
      {{1}, {3, 4}, {3, 4}},                          // scalar-like left
      {{2, 3, 4}, {4}, {2, 3, 4}},                    // row broadcast
      {{2, 3, 4}, {3, 1}, {2, 3, 4}},                 // column broadcast
      {{2, 1, 4}, {1, 3, 1}, {2, 3, 4}},              // both sides broadcast
      {{8, 16, 5, 7}, {1, 16, 1, 1}, {8, 16, 5, 7}},  // per-channel
      {{5, 1, 6, 1}, {7, 1, 3}, {5, 7, 6, 3}},        // numpy docs example
      {{0, 3}, {3}, {0, 3}},                          // empty
  };
  for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
    for (const auto& [op, fn] : ops) {
      for (const Combo& c : combos) {
        INFO(op << " " << DataTypeName(dtype) << " " << c.a.ToString() << " , " << c.b.ToString());
        // Pow needs a positive base; Div a divisor away from zero.
        Tensor a = RandomTensor(dtype, c.a, rng, op == "Pow" ? 0.1 : -2, 2);
        Tensor b = RandomTensor(dtype, c.b, rng, 0.5, 2);
        std::vector<double> expected = ReferenceBroadcast(a, b, c.out.dims(), fn);
        CheckClose(RunBinary(op, a, b, c.out), expected, dtype == DataType::kFloat ? 1e-6 : 1e-13);
        // Swapped operands exercise the other broadcast side.
        std::vector<double> swapped = ReferenceBroadcast(b, a, c.out.dims(), fn);
        if (op != "Pow") CheckClose(RunBinary(op, b, a, c.out), swapped, dtype == DataType::kFloat ? 1e-6 : 1e-13);
      }
    }
  }
}

TEST_CASE("integer binary kernels: truncating Div, exact Pow, errors", "[device][elementwise]") {
  Tensor a = Tensor::FromVector<int32_t>(DataType::kInt32, {6}, {7, -7, 7, -7, 3, -2});
  Tensor b = Tensor::FromVector<int32_t>(DataType::kInt32, {6}, {2, 2, -2, -2, 4, 3});
  CheckClose(RunBinary("Div", a, b, {6}), {3, -3, -3, 3, 0, 0}, 0, 0);
  CheckClose(RunBinary("Pow", a, b, {6}), {49, 49, 0, 0, 81, -8}, 0, 0);
  CheckClose(RunBinary("Sub", a, b, {6}), {5, -9, 9, -5, -1, -5}, 0, 0);

  Tensor big = Tensor::FromVector<int64_t>(DataType::kInt64, {2}, {int64_t{1} << 40, std::numeric_limits<int64_t>::min()});
  Tensor minus_one = Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {-1});
  Tensor wide = Tensor::FromVector<int64_t>(DataType::kInt64, {2}, {int64_t{1} << 40, -5});
  CheckClose(RunBinary("Mul", wide, Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {3}), {2}),
             {3.0 * (int64_t{1} << 40), -15}, 0, 0);
  Tensor q = RunBinary("Div", big, minus_one, {2});
  CHECK(q.data_as<int64_t>()[0] == -(int64_t{1} << 40));
  CHECK(q.data_as<int64_t>()[1] == std::numeric_limits<int64_t>::min());  // wraps instead of trapping

  Tensor zero = Tensor::FromVector<int32_t>(DataType::kInt32, {1}, {0});
  CHECK_THROWS_WITH(RunBinary("Div", a, zero, {6}), Catch::Contains("bin") && Catch::Contains("division by zero"));
  CHECK_THROWS_AS(RunBinary("Add", a, b, {7}), Error);  // output does not match the broadcast
}
