// The fast paths of the hot CPU kernels against float64 loops: a batched
// MatMul folded into one product, Pow with a constant exponent, the
// vectorized high_precision unary math, Clip, the broadcast inner loops,
// SoftmaxV2, LayerNorm and the last-axis reductions, on odd sizes (vector
// remainders) and with NaN, infinities and signed zeros.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "device/cpu/kernels/kernel_utils.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Random values in [lo, hi) followed by the special values.
Tensor WithSpecials(std::mt19937& rng, int64_t random_count, double lo, double hi, const std::vector<float>& specials) {
  const Tensor random = RandomTensor(DataType::kFloat, Shape{random_count}, rng, lo, hi);
  std::vector<float> values(random.data_as<float>(), random.data_as<float>() + random_count);
  values.insert(values.end(), specials.begin(), specials.end());
  return Tensor::FromVector<float>(DataType::kFloat, {static_cast<int64_t>(values.size())}, values);
}

// Distance of got from the float nearest `exact`, in ULPs of that float; 0
// when both are NaN or the same infinity, inf when only one is NaN.
double UlpError(float got, double exact) {
  const float rounded = static_cast<float>(exact);
  if (std::isnan(rounded) || std::isnan(got)) {
    return std::isnan(rounded) && std::isnan(got) ? 0 : std::numeric_limits<double>::infinity();
  }
  if (std::isinf(rounded) || std::isinf(got)) return got == rounded ? 0 : std::numeric_limits<double>::infinity();
  const float magnitude = std::abs(rounded);
  const double ulp = static_cast<double>(std::nextafter(magnitude, kInf)) - magnitude;
  return std::abs(static_cast<double>(got) - exact) / ulp;
}

// The largest UlpError of `actual` against fn applied to each input in double.
double MaxUlpError(const Tensor& actual, const Tensor& input, const std::function<double(double)>& fn) {
  const std::vector<double> in = ToDoubles(input);
  double worst = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const double error = UlpError(actual.data_as<float>()[i], fn(in[i]));
    INFO("x = " << in[i] << " got " << actual.data_as<float>()[i] << " expected " << fn(in[i]));
    CHECK(error < std::numeric_limits<double>::infinity());
    worst = std::max(worst, error);
  }
  return worst;
}

Tensor RunUnaryOp(const std::string& op, const Tensor& x, const std::string& mode = "") {
  Graph g;
  Node* node = g.AddNode(op, "op", {g.AddInput("x", x.dtype(), x.shape())});
  if (!mode.empty()) node->attrs().Set(ge::kImplModeAttr, mode);
  SetOutput(node, 0, x.dtype(), x.shape());
  return RunCpuKernel(*node, {x})[0];
}

Tensor RunBinaryOp(const std::string& op, const Tensor& a, const Tensor& b, const Shape& out) {
  Graph g;
  Node* node = g.AddNode(op, "op", {g.AddInput("a", a.dtype(), a.shape()), g.AddInput("b", b.dtype(), b.shape())});
  SetOutput(node, 0, a.dtype(), out);
  return RunCpuKernel(*node, {a, b})[0];
}

// x ^ exponent with the exponent a constant scalar of x's dtype.
Tensor RunConstantPow(const Tensor& x, const Tensor& exponent) {
  Graph g;
  Node* node = g.AddNode("Pow", "pow", {g.AddInput("x", x.dtype(), x.shape()), g.AddConstant("e", exponent)});
  SetOutput(node, 0, x.dtype(), x.shape());
  return RunCpuKernel(*node, {x, Tensor()})[0];
}

// numpy matmul of a [batch..., M, K] (stored [batch..., K, M] when
// transpose_a) with a batch-free b [K, N] (leading 1s allowed).
std::vector<double> ReferenceSharedMatMul(const Tensor& a, bool transpose_a, const Tensor& b, int64_t m, int64_t k,
                                          int64_t n) {
  const std::vector<double> av = ToDoubles(a), bv = ToDoubles(b);
  const int64_t batch = a.num_elements() / (m * k);
  std::vector<double> out;
  for (int64_t t = 0; t < batch; ++t) {
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t p = 0; p < k; ++p) acc += av[t * m * k + (transpose_a ? p * m + i : i * k + p)] * bv[p * n + j];
        out.push_back(acc);
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("BatchMatMulV2 with a batch-free x2 matches numpy matmul, folded or not", "[device][fast_paths]") {
  std::mt19937 rng(71);
  struct Case {
    Shape a, b, out;
    bool transpose_a;
    DataType dtype;
  };
  const std::vector<Case> cases = {
      {{37, 1, 19}, {19, 23}, {37, 1, 23}, false, DataType::kFloat},          // the M = 1 attention projection
      {{2, 3, 5, 19}, {1, 1, 19, 7}, {2, 3, 5, 7}, false, DataType::kFloat},  // x2 batch dims all 1
      {{3, 19, 5}, {19, 7}, {3, 5, 7}, true, DataType::kFloat},               // transposed x1: not folded
      {{4, 2, 9}, {9, 3}, {4, 2, 3}, false, DataType::kDouble},               // the direct loop
  };
  for (const Case& c : cases) {
    INFO(c.a.ToString() << " x " << c.b.ToString());
    const Tensor a = RandomTensor(c.dtype, c.a, rng), b = RandomTensor(c.dtype, c.b, rng);
    Graph g;
    Node* node = g.AddNode("BatchMatMulV2", "mm", {g.AddInput("a", c.dtype, c.a), g.AddInput("b", c.dtype, c.b)});
    node->attrs().Set("adj_x1", c.transpose_a);
    node->attrs().Set("adj_x2", false);
    node->attrs().Set("offset_x", int64_t{0});
    SetOutput(node, 0, c.dtype, c.out);
    const int64_t m = c.out.dim(c.out.rank() - 2), n = c.out.dim(c.out.rank() - 1);
    const int64_t k = c.b.dim(c.b.rank() - 2);
    CheckClose(RunCpuKernel(*node, {a, b})[0], ReferenceSharedMatMul(a, c.transpose_a, b, m, k, n), 1e-5, 1e-5);
  }
}

TEST_CASE("Pow with a constant scalar exponent matches pow, special values included", "[device][fast_paths]") {
  std::mt19937 rng(72);
  const Tensor x = WithSpecials(
      rng, 301, -40, 40,
      {kNaN, kInf, -kInf, 0.0f, -0.0f, 1.0f, -1.0f, 1e-30f, -1e-30f, 1e30f, -1e30f, 2.0f, -2.5f, 1e-40f, 3e12f, 3e13f});
  // Exponents with a one-operation form (0, 1, 2, -1, 0.5) give pow's
  // correctly rounded result (within half an ULP of the exact power); the
  // double-evaluated ones (3, -2, -0.5) and the generic powf path (2.5, 4)
  // within one ULP.
  for (float e : {0.0f, 1.0f, 2.0f, -1.0f, 0.5f, 3.0f, -2.0f, -0.5f, 2.5f, 4.0f}) {
    INFO("exponent " << e);
    const Tensor y = RunConstantPow(x, Tensor::FromVector<float>(DataType::kFloat, {}, {e}));
    const bool exact = e == 0 || e == 1 || e == 2 || e == -1 || e == 0.5f;
    CHECK(MaxUlpError(y, x, [e](double v) { return std::pow(v, static_cast<double>(e)); }) <= (exact ? 0.5 : 1));
    // pow's signed zeros: pow(-0, 0.5) = +0, pow(-0, 3) = -0, pow(-0, -1) = -inf.
    const float at_minus_zero = y.data_as<float>()[301 + 4];
    CHECK(std::signbit(at_minus_zero) == std::signbit(std::pow(-0.0f, e)));
  }

  // float64 keeps pow's own results (the one-operation forms equal them).
  const Tensor xd = RandomTensor(DataType::kDouble, Shape{33}, rng, -5, 5);
  for (double e : {2.0, -1.0, 3.0}) {
    const Tensor y = RunConstantPow(xd, Tensor::FromVector<double>(DataType::kDouble, {}, {e}));
    std::vector<double> expected;
    for (double v : ToDoubles(xd)) expected.push_back(std::pow(v, e));
    CheckClose(y, expected, 0, 0);
  }

  // float16 computes in float and rounds once.
  const Tensor xf = RandomTensor(DataType::kFloat, Shape{17}, rng, 0, 4);
  Tensor xh(DataType::kFloat16, xf.shape());
  for (int64_t i = 0; i < 17; ++i) xh.data_as<_Float16>()[i] = static_cast<_Float16>(xf.data_as<float>()[i]);
  Tensor eh(DataType::kFloat16, Shape{});
  eh.data_as<_Float16>()[0] = static_cast<_Float16>(0.5f);
  std::vector<double> expected;
  for (double v : ToDoubles(xh)) expected.push_back(static_cast<double>(static_cast<_Float16>(std::sqrt(v))));
  CheckClose(RunConstantPow(xh, eh), expected, 0, 0);

  // A non-scalar or run-time exponent broadcasts through the generic loop.
  const Tensor base = RandomTensor(DataType::kFloat, Shape{2, 3}, rng, 0.5, 3);
  const Tensor exponents = Tensor::FromVector<float>(DataType::kFloat, {3}, {2.0f, 0.5f, -1.0f});
  std::vector<double> broadcast;
  const std::vector<double> bv = ToDoubles(base);
  for (size_t i = 0; i < bv.size(); ++i) broadcast.push_back(std::pow(bv[i], ToDoubles(exponents)[i % 3]));
  CheckClose(RunBinaryOp("Pow", base, exponents, Shape{2, 3}), broadcast, 1e-6, 0);
}

TEST_CASE("high_precision Exp, Sqrt, Erf, Tanh, Sigmoid and Gelu stay within one ULP on odd sizes",
          "[device][fast_paths]") {
  std::mt19937 rng(73);
  const std::vector<float> specials = {kNaN,  kInf,   -kInf,  0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, 88.7f,
                                       88.8f, -103.f, -110.f, 1.5f, -1.5f, 0.125f, -0.125f, 4.0f,   -13.5f};
  const Tensor x = WithSpecials(rng, 1037, -12, 12, specials);
  const std::vector<std::pair<std::string, std::function<double(double)>>> ops = {
      {"Exp", [](double v) { return std::exp(v); }},
      {"Sqrt", [](double v) { return std::sqrt(v); }},
      {"Erf", [](double v) { return std::erf(v); }},
      {"Tanh", [](double v) { return std::tanh(v); }},
      {"Sigmoid", [](double v) { return 1 / (1 + std::exp(-v)); }},
      {"Gelu", [](double v) { return 0.5 * v * std::erfc(-v / std::sqrt(2.0)); }},
  };
  for (const auto& [op, fn] : ops) {
    INFO(op);
    CHECK(MaxUlpError(RunUnaryOp(op, x, "high_precision"), x, fn) <= 1);
  }
  CHECK(std::signbit(RunUnaryOp("Sqrt", x, "high_precision").data_as<float>()[1037 + 4]));  // sqrt(-0) = -0
}

TEST_CASE("ClipByValue keeps NaN and clamps infinities, Relu zeroes the negatives, on odd sizes",
          "[device][fast_paths]") {
  std::mt19937 rng(74);
  const Tensor x = WithSpecials(rng, 1001, -10, 10, {kNaN, kInf, -kInf, -0.0f, 6.0f, 6.5f});
  Graph g;
  Node* clip = g.AddNode("ClipByValue", "clip",
                         {g.AddInput("x", DataType::kFloat, x.shape()),
                          g.AddConstant("lo", Tensor::FromVector<float>(DataType::kFloat, {}, {0.0f})),
                          g.AddConstant("hi", Tensor::FromVector<float>(DataType::kFloat, {}, {6.0f}))});
  SetOutput(clip, 0, DataType::kFloat, x.shape());
  const Tensor clipped = RunCpuKernel(*clip, {x, Tensor(), Tensor()})[0];
  const Tensor relu = RunUnaryOp("Relu", x);
  const std::vector<double> in = ToDoubles(x);
  for (size_t i = 0; i < in.size(); ++i) {
    INFO("x = " << in[i]);
    if (std::isnan(in[i])) {
      CHECK(std::isnan(clipped.data_as<float>()[i]));
    } else {
      CHECK(clipped.data_as<float>()[i] == std::clamp(in[i], 0.0, 6.0));
      CHECK(relu.data_as<float>()[i] == (in[i] > 0 ? in[i] : 0.0));
    }
  }
}

TEST_CASE("Add, Sub, Mul and Div broadcast a trailing vector, a per-row value and a scalar exactly",
          "[device][fast_paths]") {
  std::mt19937 rng(75);
  struct Case {
    Shape a, b, out;
  };
  const std::vector<Case> cases = {
      {{3, 5, 37}, {37}, {3, 5, 37}},    {{3, 5, 37}, {3, 5, 1}, {3, 5, 37}}, {{3, 5, 37}, {}, {3, 5, 37}},
      {{37}, {3, 5, 37}, {3, 5, 37}},    {{}, {3, 5, 37}, {3, 5, 37}},        {{3, 1, 37}, {1, 5, 1}, {3, 5, 37}},
      {{2, 1001}, {2, 1001}, {2, 1001}},
  };
  const std::vector<std::pair<std::string, std::function<double(double, double)>>> ops = {
      {"Add", std::plus<double>()},
      {"Sub", std::minus<double>()},
      {"Mul", std::multiplies<double>()},
      {"Div", std::divides<double>()},
  };
  for (const Case& c : cases) {
    const Tensor a = RandomTensor(DataType::kFloat, c.a, rng, -4, 4);
    const Tensor b = RandomTensor(DataType::kFloat, c.b, rng, 0.5, 4);
    const std::vector<double> av = ToDoubles(a), bv = ToDoubles(b);
    for (const auto& [op, fn] : ops) {
      INFO(op << " " << c.a.ToString() << " " << c.b.ToString());
      std::vector<double> expected;
      for (int64_t i = 0; i < c.out.NumElements(); ++i) {
        const std::vector<int64_t> index = Unravel(i, c.out.dims());
        auto read = [&](const std::vector<double>& values, const Shape& shape) {
          std::vector<int64_t> at(shape.rank());
          for (size_t d = 0; d < shape.rank(); ++d) {
            at[d] = shape.dim(d) == 1 ? 0 : index[index.size() - shape.rank() + d];
          }
          return values[Ravel(at, shape.dims())];
        };
        // float's + - * / round the exact result once, as this float of a double does.
        expected.push_back(static_cast<float>(fn(read(av, c.a), read(bv, c.b))));
      }
      CheckClose(RunBinaryOp(op, a, b, c.out), expected, 0, 0);
    }
  }
}

TEST_CASE("SoftmaxV2 and LayerNorm over an odd last axis match float64 in both modes", "[device][fast_paths]") {
  std::mt19937 rng(76);
  const Shape shape{3, 5, 37};
  const Tensor x = RandomTensor(DataType::kFloat, shape, rng, -6, 6);
  const Tensor gamma = RandomTensor(DataType::kFloat, Shape{37}, rng, 0.5, 2);
  const Tensor beta = RandomTensor(DataType::kFloat, Shape{37}, rng, -1, 1);
  const std::vector<double> xv = ToDoubles(x), gv = ToDoubles(gamma), bv = ToDoubles(beta);
  std::vector<double> softmax, layer_norm;
  for (int64_t r = 0; r < 15; ++r) {
    const double* row = xv.data() + r * 37;
    double max = row[0], sum = 0, mean = 0, variance = 0;
    for (int64_t c = 0; c < 37; ++c) max = std::max(max, row[c]);
    for (int64_t c = 0; c < 37; ++c) sum += std::exp(row[c] - max);
    for (int64_t c = 0; c < 37; ++c) softmax.push_back(std::exp(row[c] - max) / sum);
    for (int64_t c = 0; c < 37; ++c) mean += row[c] / 37;
    for (int64_t c = 0; c < 37; ++c) variance += (row[c] - mean) * (row[c] - mean) / 37;
    for (int64_t c = 0; c < 37; ++c) layer_norm.push_back((row[c] - mean) / std::sqrt(variance + 1e-5) * gv[c] + bv[c]);
  }
  for (const std::string mode : {"high_precision", "high_performance"}) {
    INFO(mode);
    // high_performance: FastExp, and LayerNorm's one-pass float statistics with FastRsqrt.
    const bool precise = mode == "high_precision";
    Graph g;
    Node* sm = g.AddNode("SoftmaxV2", "sm", {g.AddInput("x", DataType::kFloat, shape)});
    sm->attrs().Set("axes", std::vector<int64_t>{-1});
    sm->attrs().Set(ge::kImplModeAttr, mode);
    SetOutput(sm, 0, DataType::kFloat, shape);
    CheckClose(RunCpuKernel(*sm, {x})[0], softmax, precise ? 2e-7 : 1e-5, 1e-12);

    Node* ln = g.AddNode(
        "LayerNorm", "ln",
        {g.AddInput("x2", DataType::kFloat, shape), g.AddConstant("gamma", gamma), g.AddConstant("beta", beta)});
    ln->attrs().Set("begin_norm_axis", int64_t{-1});
    ln->attrs().Set("begin_params_axis", int64_t{-1});
    ln->attrs().Set("epsilon", 1e-5f);
    ln->attrs().Set(ge::kImplModeAttr, mode);
    SetOutput(ln, 0, DataType::kFloat, shape);
    CheckClose(RunCpuKernel(*ln, {x, Tensor(), Tensor()})[0], layer_norm, precise ? 2e-7 : 1e-5, precise ? 1e-6 : 1e-4);
  }
}

TEST_CASE("ReduceMeanD and ReduceSumD over an odd last axis match float64", "[device][fast_paths]") {
  std::mt19937 rng(77);
  const Shape shape{7, 1001};
  const Tensor x = RandomTensor(DataType::kFloat, shape, rng, -3, 5);
  const Tensor xi = RandomTensor(DataType::kInt32, shape, rng, -1000, 1000);
  const std::vector<double> xv = ToDoubles(x), xiv = ToDoubles(xi);
  std::vector<double> sums(7, 0), means(7, 0), int_sums(7, 0);
  for (int64_t r = 0; r < 7; ++r) {
    for (int64_t c = 0; c < 1001; ++c) {
      sums[r] += xv[r * 1001 + c];
      int_sums[r] += xiv[r * 1001 + c];
    }
    means[r] = sums[r] / 1001;
  }
  auto reduce = [&](const std::string& op, const Tensor& in) {
    Graph g;
    Node* node = g.AddNode(op, "r", {g.AddInput("x", in.dtype(), shape)});
    node->attrs().Set("axes", std::vector<int64_t>{-1});
    node->attrs().Set("keep_dims", true);
    SetOutput(node, 0, in.dtype(), Shape{7, 1});
    return RunCpuKernel(*node, {in})[0];
  };
  // Summed in double: the float results are the correctly rounded sums.
  CheckClose(reduce("ReduceMeanD", x), means, 1e-7, 0);
  CheckClose(reduce("ReduceSumD", x), sums, 1e-7, 0);
  CheckClose(reduce("ReduceSumD", xi), int_sums, 0, 0);
}
