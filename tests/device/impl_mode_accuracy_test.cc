// The two implementation modes of each op with a choice (impl_mode_cases.h)
// against float64 references computed here: max relative error and max ULP
// (in units of the output dtype's last place at the reference value) of
// high_precision and high_performance in float32, float16 and bfloat16.
// high_precision must be at least as accurate as high_performance, both must
// stay within the bounds documented in docs/precision.md, and in float32 the
// two must really differ. GE_IMPL_MODE_TABLE=1 prints the table rows.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <limits>
#include <map>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "device/cpu/kernels/kernel_utils.h"
#include "impl_mode_cases.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

constexpr DataType kDtypes[] = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16};

// Explicit mantissa bits and minimum normal exponent of the output dtypes.
struct Format {
  int mantissa, min_exponent;
};
Format FormatOf(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat16: return {10, -14};
    case DataType::kBFloat16: return {7, -126};
    default: return {23, -126};
  }
}

// One unit in the last place of dtype at v (the subnormal spacing below the normal range).
double Ulp(double v, DataType dtype) {
  const Format f = FormatOf(dtype);
  const int exponent = v == 0 ? f.min_exponent : std::max(std::ilogb(v), f.min_exponent);
  return std::ldexp(1.0, exponent - f.mantissa);
}

struct ErrorStats {
  double max_rel = 0, max_ulp = 0;
};

// Relative error over the references in dtype's normal range; ULP over all.
ErrorStats Measure(const Tensor& actual, const std::vector<double>& expected) {
  const std::vector<double> got = ToDoubles(actual);
  REQUIRE(got.size() == expected.size());
  const double smallest_normal = std::ldexp(1.0, FormatOf(actual.dtype()).min_exponent);
  ErrorStats stats;
  for (size_t i = 0; i < got.size(); ++i) {
    const double error =
        std::isnan(got[i]) ? std::numeric_limits<double>::infinity() : std::abs(got[i] - expected[i]);
    stats.max_ulp = std::max(stats.max_ulp, error / Ulp(expected[i], actual.dtype()));
    if (std::abs(expected[i]) >= smallest_normal) {
      stats.max_rel = std::max(stats.max_rel, error / std::abs(expected[i]));
    }
  }
  return stats;
}

using Reference = std::function<std::vector<double>(const std::vector<std::vector<double>>&)>;

Reference Elementwise(double (*fn)(double)) {
  return [fn](const std::vector<std::vector<double>>& in) {
    std::vector<double> out;
    for (double v : in[0]) out.push_back(fn(v));
    return out;
  };
}
Reference Elementwise2(double (*fn)(double, double)) {
  return [fn](const std::vector<std::vector<double>>& in) {
    std::vector<double> out;
    for (size_t i = 0; i < in[0].size(); ++i) out.push_back(fn(in[0][i], in[1][i]));
    return out;
  };
}

// Rows of `cols` elements, each mapped as a whole.
template <typename RowFn>
std::vector<double> PerRow(const std::vector<double>& x, size_t cols, RowFn&& row_fn) {
  std::vector<double> out;
  for (size_t r = 0; r < x.size() / cols; ++r) {
    const std::vector<double> row = row_fn(std::vector<double>(x.begin() + r * cols, x.begin() + (r + 1) * cols));
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

std::vector<double> SoftmaxRow(const std::vector<double>& row, bool log) {
  const double max = *std::max_element(row.begin(), row.end());
  double sum = 0;
  for (double v : row) sum += std::exp(v - max);
  std::vector<double> out;
  for (double v : row) out.push_back(log ? v - max - std::log(sum) : std::exp(v - max) / sum);
  return out;
}

// y[b] = a[b] (m x k) @ w[b] (k x n) for `batches` matrices; one w for all when shared_w.
std::vector<double> MatMul(const std::vector<double>& a, const std::vector<double>& w, int64_t batches, int64_t m,
                           int64_t k, int64_t n, bool shared_w) {
  std::vector<double> y(static_cast<size_t>(batches * m * n));
  for (int64_t b = 0; b < batches; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) sum += a[(b * m + i) * k + p] * w[((shared_w ? 0 : b) * k + p) * n + j];
        y[(b * m + i) * n + j] = sum;
      }
  return y;
}

// Same-padded 3x3 window over [C, H, W] planes: Conv2D (weights [O, C, 3, 3]) or exclusive average.
std::vector<double> Window3x3(const std::vector<double>& x, const std::vector<double>* weights, int64_t channels,
                              int64_t out_channels, int64_t h, int64_t w) {
  std::vector<double> y;
  for (int64_t o = 0; o < out_channels; ++o)
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        double sum = 0;
        int64_t count = 0;
        for (int64_t c = weights ? 0 : o; c < (weights ? channels : o + 1); ++c)
          for (int64_t di = 0; di < 3; ++di)
            for (int64_t dj = 0; dj < 3; ++dj) {
              const int64_t ii = i + di - 1, jj = j + dj - 1;
              if (ii < 0 || ii >= h || jj < 0 || jj >= w) continue;
              const double v = x[(c * h + ii) * w + jj];
              sum += weights ? v * (*weights)[((o * channels + c) * 3 + di) * 3 + dj] : v;
              ++count;
            }
        y.push_back(weights ? sum : sum / static_cast<double>(count));
      }
  return y;
}

const std::map<std::string, Reference>& References() {
  static const std::map<std::string, Reference> references = {
      {"Exp", Elementwise([](double x) { return std::exp(x); })},
      {"Log", Elementwise([](double x) { return std::log(x); })},
      {"Tanh", Elementwise([](double x) { return std::tanh(x); })},
      {"Sigmoid", Elementwise([](double x) { return 1 / (1 + std::exp(-x)); })},
      {"Gelu", Elementwise([](double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); })},
      {"Erf", Elementwise([](double x) { return std::erf(x); })},
      {"Sqrt", Elementwise([](double x) { return std::sqrt(x); })},
      {"Reciprocal", Elementwise([](double x) { return 1 / x; })},
      {"Div", Elementwise2([](double a, double b) { return a / b; })},
      {"Pow", Elementwise2([](double a, double b) { return std::pow(a, b); })},
      {"SoftmaxV2",
       [](const auto& in) { return PerRow(in[0], 1024, [](auto row) { return SoftmaxRow(row, false); }); }},
      {"LogSoftmaxV2",
       [](const auto& in) { return PerRow(in[0], 1024, [](auto row) { return SoftmaxRow(row, true); }); }},
      {"LayerNorm",
       [](const auto& in) {
         return PerRow(in[0], 1024, [&](const std::vector<double>& row) {
           double mean = 0, var = 0;
           for (double v : row) mean += v / row.size();
           for (double v : row) var += (v - mean) * (v - mean) / row.size();
           std::vector<double> out;
           for (size_t c = 0; c < row.size(); ++c) {
             out.push_back((row[c] - mean) / std::sqrt(var + double(1e-5f)) * in[1][c] + in[2][c]);
           }
           return out;
         });
       }},
      {"ReduceMeanD",
       [](const auto& in) {
         std::vector<double> means;
         PerRow(in[0], 1024, [&](const std::vector<double>& row) {
           double sum = 0;
           for (double v : row) sum += v;
           means.push_back(sum / row.size());
           return std::vector<double>{};
         });
         return means;
       }},
      {"AvgPoolV2", [](const auto& in) { return Window3x3(in[0], nullptr, 16, 16, 64, 64); }},
      {"MatMulV2", [](const auto& in) { return MatMul(in[0], in[1], 1, 128, 256, 128, true); }},
      {"BatchMatMulV2", [](const auto& in) { return MatMul(in[0], in[1], 8, 64, 128, 64, false); }},
      {"Conv2D", [](const auto& in) { return Window3x3(in[0], &in[1], 32, 32, 32, 32); }},
  };
  return references;
}

// The documented bounds (docs/precision.md) in ULP of the output dtype:
// {float32, float16, bfloat16} for high_precision, then for high_performance.
struct Bounds {
  double precise[3], fast[3];
};
const std::map<std::string, Bounds>& UlpBounds() {
  static const std::map<std::string, Bounds> bounds = {
      {"Exp", {{1, 1, 1}, {64, 1, 1}}},
      {"Log", {{1, 1, 1}, {64, 1, 1}}},
      {"Tanh", {{1, 1, 1}, {96, 1, 1}}},
      {"Sigmoid", {{1, 1, 1}, {64, 1, 1}}},
      // The tanh form's own error: large relative to GELU's tiny negative tail.
      {"Gelu", {{1, 1, 1}, {2e7, 1500, 300}}},
      {"Erf", {{1, 1, 1}, {48, 1, 1}}},
      {"Sqrt", {{1, 1, 1}, {128, 1, 1}}},
      {"Reciprocal", {{1, 1, 1}, {192, 1, 1}}},
      {"Div", {{1, 1, 1}, {192, 1, 1}}},
      {"Pow", {{1, 1, 1}, {128, 1, 1}}},
      {"SoftmaxV2", {{1, 1, 1}, {96, 1, 1}}},
      {"LogSoftmaxV2", {{1, 1, 1}, {24, 1, 1}}},
      // Outputs near zero (x - mean against -beta) make the one-pass
      // statistics' absolute error large in ULP.
      {"LayerNorm", {{1, 1, 1}, {2e5, 64, 4}}},
      // A float32 sum of 1024 values: about 8 ULP when the compiler splits it
      // into vector lanes, about 17 summed in order (unoptimized builds).
      {"ReduceMeanD", {{1, 1, 1}, {32, 1, 1}}},
      {"AvgPoolV2", {{1, 1, 1}, {4, 1, 1}}},
      // float32 high_precision accumulates in float32 (oneDNN); the others in double.
      {"MatMulV2", {{32, 1, 1}, {2e4, 4, 1}}},
      {"BatchMatMulV2", {{32, 1, 1}, {3e4, 4, 1}}},
      {"Conv2D", {{32, 1, 1}, {2e4, 4, 1}}},
  };
  return bounds;
}

Tensor RunMode(const ModeCase& c, DataType dtype, const std::vector<Tensor>& inputs, std::string_view mode) {
  Graph g;
  Node* node = AddModeNode(g, c, dtype, inputs, mode);
  return RunCpuKernel(*node, inputs)[0];
}

}  // namespace

TEST_CASE("high_precision is at least as accurate as high_performance, both within their bounds",
          "[device][impl_mode]") {
  const bool print_table = std::getenv("GE_IMPL_MODE_TABLE") != nullptr;
  for (const ModeCase& c : ModeCases()) {
    for (size_t d = 0; d < std::size(kDtypes); ++d) {
      const DataType dtype = kDtypes[d];
      std::mt19937 rng(2024);
      const std::vector<Tensor> inputs = DrawInputs(c, dtype, rng);
      std::vector<std::vector<double>> wide;
      for (const Tensor& t : inputs) wide.push_back(ToDoubles(t));
      const std::vector<double> expected = References().at(c.op)(wide);
      const Tensor precise = RunMode(c, dtype, inputs, "high_precision");
      const Tensor fast = RunMode(c, dtype, inputs, "high_performance");
      const ErrorStats p = Measure(precise, expected), f = Measure(fast, expected);
      const Bounds& bounds = UlpBounds().at(c.op);
      INFO(c.op << " " << DataTypeName(dtype) << ": high_precision " << p.max_rel << " rel, " << p.max_ulp
                << " ulp; high_performance " << f.max_rel << " rel, " << f.max_ulp << " ulp");
      if (print_table) {
        std::cout << fmt::format("| {} | {} | {:.2e} | {:.3g} | {:.2e} | {:.3g} |\n", c.op, DataTypeName(dtype),
                                 p.max_rel, p.max_ulp, f.max_rel, f.max_ulp);
      }
      CHECK(p.max_ulp <= f.max_ulp);
      CHECK(p.max_ulp <= bounds.precise[d]);
      CHECK(f.max_ulp <= bounds.fast[d]);
      if (dtype == DataType::kFloat) CHECK(ToDoubles(precise) != ToDoubles(fast));
    }
  }
}

TEST_CASE("a kernel reads its implementation mode from the node's _op_impl_mode attribute", "[device][impl_mode]") {
  Graph g;
  Node* node = g.AddNode("Exp", "exp", {g.AddInput("x", DataType::kFloat, Shape{4})});
  CHECK(ge::ImplModeOf(*node, "high_precision") == "high_precision");
  node->attrs().Set(ge::kImplModeAttr, std::string("high_performance"));
  CHECK(ge::ImplModeOf(*node, "high_precision") == "high_performance");
  CHECK(device::cpu::WantsHighPerformance(*node));
  // A mode the op does not implement leaves the kernel at its default.
  node->attrs().Set(ge::kImplModeAttr, std::string("keep_fp16"));
  CHECK_FALSE(device::cpu::WantsHighPerformance(*node));
  CHECK_FALSE(device::cpu::WantsReducedPrecisionProducts(*node));
  node->attrs().Set(ge::kImplModeAttr, std::string("enable_hi_float_32_execution"));
  CHECK(device::cpu::WantsReducedPrecisionProducts(*node));
}

TEST_CASE("the kernel registry lists both modes for the ops with two implementations", "[device][impl_mode]") {
  const device::KernelRegistry& registry = device::CpuDevice().kernels();
  for (const ModeCase& c : ModeCases()) {
    INFO(c.op);
    const std::vector<std::string>& modes = registry.Find(c.op, DataType::kFloat16)->impl_modes;
    REQUIRE(modes.size() >= 2);
    CHECK(modes[0] == "high_precision");
    CHECK(modes[1] == "high_performance");
    // float64 has the precise implementation only.
    CHECK(registry.Find(c.op, DataType::kDouble)->impl_modes == std::vector<std::string>{"high_precision"});
  }
  for (const char* cube : {"MatMulV2", "BatchMatMulV2", "Conv2D"}) {
    CHECK(registry.Find(cube, DataType::kFloat)->impl_modes ==
          std::vector<std::string>{"high_precision", "high_performance", "enable_float_32_execution",
                                   "enable_hi_float_32_execution"});
  }
}

TEST_CASE("enable_hi_float_32_execution rounds the float32 operands of MatMulV2 to bfloat16", "[device][impl_mode]") {
  // 1 + 2^-10 is exact in float32 and rounds to 1 in bfloat16 (7 mantissa bits).
  const ModeCase& matmul = *std::find_if(ModeCases().begin(), ModeCases().end(),
                                         [](const ModeCase& c) { return c.op == "MatMulV2"; });
  std::vector<Tensor> inputs;
  for (const Shape& shape : matmul.inputs) {
    Tensor t(DataType::kFloat, shape);
    for (int64_t i = 0; i < t.num_elements(); ++i) t.data_as<float>()[i] = 1.0f + 0x1p-10f;
    inputs.push_back(t);
  }
  const double k = static_cast<double>(matmul.inputs[0].dim(1));
  const double exact = k * (1 + 0x1p-10) * (1 + 0x1p-10);
  const Tensor full = RunMode(matmul, DataType::kFloat, inputs, "enable_float_32_execution");
  const Tensor reduced = RunMode(matmul, DataType::kFloat, inputs, "enable_hi_float_32_execution");
  CHECK(ToDoubles(full)[0] == Approx(exact).epsilon(1e-6));
  CHECK(ToDoubles(reduced)[0] == k);
}

TEST_CASE("the bfloat16-product kernels take bias, transposed operands and float16 nodes", "[device][impl_mode]") {
  std::mt19937 rng(11);
  for (DataType dtype : {DataType::kFloat, DataType::kFloat16}) {
    INFO(DataTypeName(dtype));
    // y = x1 @ x2^T + bias with x2 [N, K] stored transposed and not constant.
    const ModeCase shapes{"MatMulV2", {Shape{5, 32}, Shape{7, 32}, Shape{7}}, {{-1, 1}, {-1, 1}, {-1, 1}}, Shape{5, 7}};
    const std::vector<Tensor> inputs = DrawInputs(shapes, dtype, rng);
    Graph g;
    Node* node = AddModeNode(g, shapes, dtype, inputs, "enable_hi_float_32_execution");
    node->attrs().Set("transpose_x2", true);
    const std::vector<double> a = ToDoubles(inputs[0]), w = ToDoubles(inputs[1]), bias = ToDoubles(inputs[2]);
    std::vector<double> expected;
    for (int64_t i = 0; i < 5; ++i)
      for (int64_t j = 0; j < 7; ++j) {
        double sum = bias[j];
        for (int64_t p = 0; p < 32; ++p) sum += a[i * 32 + p] * w[j * 32 + p];
        expected.push_back(sum);
      }
    // bfloat16 operands: up to 2^-8 relative per product, 32 products of magnitude <= 1; a wrong
    // layout or a lost bias would be off by O(1).
    CheckClose(RunCpuKernel(*node, inputs)[0], expected, 0, 0.03);
  }
}

TEST_CASE("LayerNorm's one-pass statistics survive a mean far from zero", "[device][impl_mode]") {
  // Rows with mean 1000 and spread 1: E[x^2] - mean^2 taken from zero would
  // cancel to noise in float32.
  const ModeCase& ln = *std::find_if(ModeCases().begin(), ModeCases().end(),
                                     [](const ModeCase& c) { return c.op == "LayerNorm"; });
  std::mt19937 rng(3);
  std::vector<Tensor> inputs = DrawInputs(ln, DataType::kFloat, rng);
  for (int64_t i = 0; i < inputs[0].num_elements(); ++i) inputs[0].data_as<float>()[i] += 1000.0f;
  std::vector<std::vector<double>> wide;
  for (const Tensor& t : inputs) wide.push_back(ToDoubles(t));
  const std::vector<double> expected = References().at("LayerNorm")(wide);
  CheckClose(RunMode(ln, DataType::kFloat, inputs, "high_performance"), expected, 0, 1e-3);
}
