// The unary math, activation and axis-normalization kernels against float64
// references, in float32, float64 and float16 (computed in float).
#include <algorithm>
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

// `x` converted to float16 (round to nearest), for the half-precision paths.
Tensor ToHalf(const Tensor& x) {
  Tensor h(DataType::kFloat16, x.shape());
  const std::vector<double> values = ToDoubles(x);
  for (size_t i = 0; i < values.size(); ++i) h.data_as<_Float16>()[i] = static_cast<_Float16>(values[i]);
  return h;
}

AttrMap Attrs(std::initializer_list<std::pair<const char*, AttrValue>> values) {
  AttrMap map;
  for (const auto& [name, value] : values) map.Set(name, value);
  return map;
}

Tensor RunUnary(const std::string& op, const Tensor& x, DataType out_dtype, const AttrMap& attrs = {}) {
  Graph g;
  Node* node = g.AddNode(op, "u", {g.AddInput("x", x.dtype(), x.shape())});
  for (const auto& [name, value] : attrs.entries()) node->attrs().Set(name, value);
  SetOutput(node, 0, out_dtype, x.shape());
  return RunCpuKernel(*node, {x})[0];
}

// Checks op on float32, float64 and float16 copies of uniform values in [lo, hi).
void CheckUnaryFloat(const std::string& op, const Fn1& fn, double lo, double hi, const AttrMap& attrs = {}) {
  std::mt19937 rng(7);
  Tensor x = RandomTensor(DataType::kDouble, {3, 20000}, rng, lo, hi);
  for (DataType dtype : {DataType::kFloat, DataType::kDouble, DataType::kFloat16}) {
    INFO(op << " " << DataTypeName(dtype));
    const Tensor input =
        dtype == DataType::kDouble ? x : RunUnary("Cast", x, dtype, Attrs({{"dst_type", static_cast<int64_t>(dtype)}}));
    std::vector<double> expected;
    for (double v : ToDoubles(input)) expected.push_back(fn(v));
    const double rtol = dtype == DataType::kDouble ? 1e-12 : dtype == DataType::kFloat ? 4e-6 : 1e-3;
    CheckClose(RunUnary(op, input, dtype, attrs), expected, rtol, dtype == DataType::kFloat16 ? 1e-3 : 1e-6);
  }
}

double Softplus(double x) { return std::log1p(std::exp(x)); }

}  // namespace

TEST_CASE("unary math kernels match float64 in every float dtype", "[device][elementwise]") {
  const std::vector<std::tuple<std::string, Fn1, double, double>> cases = {
      {"Sign", [](double x) { return double((x > 0) - (x < 0)); }, -3, 3},
      {"Ceil", [](double x) { return std::ceil(x); }, -5, 5},
      {"Floor", [](double x) { return std::floor(x); }, -5, 5},
      {"Sin", [](double x) { return std::sin(x); }, -4, 4},
      {"Cos", [](double x) { return std::cos(x); }, -4, 4},
      {"Tan", [](double x) { return std::tan(x); }, -1.2, 1.2},
      {"Asin", [](double x) { return std::asin(x); }, -0.99, 0.99},
      {"Acos", [](double x) { return std::acos(x); }, -0.99, 0.99},
      {"Atan", [](double x) { return std::atan(x); }, -5, 5},
      {"Sinh", [](double x) { return std::sinh(x); }, -3, 3},
      {"Cosh", [](double x) { return std::cosh(x); }, -3, 3},
      {"Asinh", [](double x) { return std::asinh(x); }, -5, 5},
      {"Acosh", [](double x) { return std::acosh(x); }, 1, 6},
      {"Atanh", [](double x) { return std::atanh(x); }, -0.9, 0.9},
      {"Softplus", Softplus, -10, 10},
      {"Softsign", [](double x) { return x / (1 + std::abs(x)); }, -5, 5},
      {"HardSwish", [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }, -5, 5},
      {"Mish", [](double x) { return x * std::tanh(Softplus(x)); }, -5, 5},
      {"Sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8},
      {"Exp", [](double x) { return std::exp(x); }, -5, 5},
  };
  for (const auto& [op, fn, lo, hi] : cases) CheckUnaryFloat(op, fn, lo, hi);
}

TEST_CASE("activations read their attributes", "[device][elementwise]") {
  CheckUnaryFloat("LeakyRelu", [](double x) { return x < 0 ? 0.1 * x : x; }, -3, 3,
                  Attrs({{"negative_slope", 0.1f}}));
  CheckUnaryFloat("Elu", [](double x) { return x < 0 ? 2.0 * std::expm1(x) : x; }, -3, 3, Attrs({{"alpha", 2.0f}}));
  CheckUnaryFloat("Selu", [](double x) { return 3.0 * (x > 0 ? x : 2.0 * std::expm1(x)); }, -3, 3,
                  Attrs({{"alpha", 2.0f}, {"gamma", 3.0f}}));
  CheckUnaryFloat("Celu", [](double x) { return x > 0 ? x : 2.0 * std::expm1(x / 2.0); }, -3, 3,
                  Attrs({{"alpha", 2.0f}}));
  CheckUnaryFloat("ThresholdedRelu", [](double x) { return x > 0.5 ? x : 0; }, -3, 3, Attrs({{"alpha", 0.5f}}));
  CheckUnaryFloat("HardSigmoid", [](double x) { return std::clamp(0.25 * x + 0.5, 0.0, 1.0); }, -5, 5,
                  Attrs({{"alpha", 0.25f}, {"beta", 0.5f}}));
  CheckUnaryFloat("Shrink", [](double x) { return x < -1.5 ? x + 0.5 : x > 1.5 ? x - 0.5 : 0; }, -3, 3,
                  Attrs({{"lambd", 1.5f}, {"bias", 0.5f}}));
}

TEST_CASE("Round halves to even, predicates give bool", "[device][elementwise]") {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 2.4f, -2.6f, float(nan)});
  CheckClose(RunUnary("Round", x, DataType::kFloat), {0, 2, 2, -0.0, -2, 2, -3, nan}, 0, 0);
  CheckClose(RunUnary("IsNan", x, DataType::kBool), {0, 0, 0, 0, 0, 0, 0, 1}, 0, 0);
  Tensor y = Tensor::FromVector<double>(DataType::kDouble, {4}, {-inf, inf, 1.0, nan});
  CheckClose(RunUnary("IsInf", y, DataType::kBool, Attrs({{"detect_negative", int64_t{1}}, {"detect_positive", int64_t{1}}})),
             {1, 1, 0, 0}, 0, 0);
  CheckClose(RunUnary("IsInf", y, DataType::kBool, Attrs({{"detect_negative", int64_t{0}}, {"detect_positive", int64_t{1}}})),
             {0, 1, 0, 0}, 0, 0);
}

TEST_CASE("integer and bool unary kernels", "[device][elementwise]") {
  Tensor i8 = Tensor::FromVector<int8_t>(DataType::kInt8, {5}, {-128, -3, 0, 5, 127});
  CheckClose(RunUnary("Relu", i8, DataType::kInt8), {0, 0, 0, 5, 127}, 0, 0);
  CheckClose(RunUnary("Sign", i8, DataType::kInt8), {-1, -1, 0, 1, 1}, 0, 0);
  CheckClose(RunUnary("Abs", i8, DataType::kInt8), {-128, 3, 0, 5, 127}, 0, 0);  // |INT8_MIN| wraps as in numpy
  CheckClose(RunUnary("Invert", i8, DataType::kInt8), {127, 2, -1, -6, -128}, 0, 0);
  Tensor u16 = Tensor::FromVector<uint16_t>(DataType::kUInt16, {2}, {0, 65535});
  CheckClose(RunUnary("Invert", u16, DataType::kUInt16), {65535, 0}, 0, 0);
  Tensor b(DataType::kBool, Shape{2});
  b.data_as<bool>()[0] = true;
  b.data_as<bool>()[1] = false;
  CheckClose(RunUnary("LogicalNot", b, DataType::kBool), {0, 1}, 0, 0);
  CHECK_THROWS_WITH(RunUnary("Sin", i8, DataType::kInt8), Catch::Contains("Sin") && Catch::Contains("int8"));
}

TEST_CASE("ClipByValue on int8 and float16", "[device][elementwise]") {
  Graph g;
  Tensor x = Tensor::FromVector<int8_t>(DataType::kInt8, {5}, {-128, -3, 0, 5, 127});
  Value* lo = g.AddConstant("lo", Tensor::FromVector<int8_t>(DataType::kInt8, {}, {-2}));
  Value* hi = g.AddConstant("hi", Tensor::FromVector<int8_t>(DataType::kInt8, {}, {4}));
  Node* clip = g.AddNode("ClipByValue", "clip", {g.AddInput("x", DataType::kInt8, {5}), lo, hi});
  SetOutput(clip, 0, DataType::kInt8, {5});
  CheckClose(RunCpuKernel(*clip, {x})[0], {-2, -2, 0, 4, 4}, 0, 0);

  Tensor h = ToHalf(Tensor::FromVector<float>(DataType::kFloat, {3}, {-7.5f, 0.25f, 9.f}));
  Value* hlo = g.AddConstant("hlo", ToHalf(Tensor::FromVector<float>(DataType::kFloat, {}, {-1.f})));
  Value* hhi = g.AddConstant("hhi", ToHalf(Tensor::FromVector<float>(DataType::kFloat, {}, {1.f})));
  Node* hclip = g.AddNode("ClipByValue", "hclip", {g.AddInput("h", DataType::kFloat16, {3}), hlo, hhi});
  SetOutput(hclip, 0, DataType::kFloat16, {3});
  CheckClose(RunCpuKernel(*hclip, {h})[0], {-1, 0.25, 1}, 0, 0);
}

TEST_CASE("LogSoftmaxV2 and Hardmax over an inner or the last axis", "[device][softmax]") {
  std::mt19937 rng(9);
  const std::vector<int64_t> dims = {3, 5, 4};
  Tensor x = RandomTensor(DataType::kFloat, Shape(dims), rng, -4, 4);
  x.data_as<float>()[1] = x.data_as<float>()[5];  // a tie along axis 1: the first maximum wins
  const std::vector<double> xt = ToDoubles(x);
  for (int64_t axis : {1, 2}) {
    const int64_t n = dims[axis], inner = axis == 2 ? 1 : 4, outer = axis == 2 ? 15 : 3;
    std::vector<double> log_softmax(xt.size()), hardmax(xt.size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < inner; ++j) {
        auto at = [&](int64_t k) { return (o * n + k) * inner + j; };
        double max = xt[at(0)], sum = 0;
        int64_t arg = 0;
        for (int64_t k = 1; k < n; ++k) {
          if (xt[at(k)] > max) max = xt[at(k)], arg = k;
        }
        for (int64_t k = 0; k < n; ++k) sum += std::exp(xt[at(k)] - max);
        for (int64_t k = 0; k < n; ++k) {
          log_softmax[at(k)] = xt[at(k)] - max - std::log(sum);
          hardmax[at(k)] = k == arg ? 1 : 0;
        }
      }
    }
    INFO("axis " << axis);
    const AttrMap attrs = Attrs({{"axes", std::vector<int64_t>{axis}}});
    CheckClose(RunUnary("LogSoftmaxV2", x, DataType::kFloat, attrs), log_softmax, 1e-5, 1e-6);
    CheckClose(RunUnary("Hardmax", x, DataType::kFloat, attrs), hardmax, 0, 0);
    CheckClose(RunUnary("LogSoftmaxV2", ToHalf(x), DataType::kFloat16, attrs), log_softmax, 2e-3, 2e-3);
  }
}
