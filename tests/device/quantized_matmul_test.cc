// The quantized MatMulV2 / BatchMatMulV2 (exact, against int64 loops) and
// the weight-only WeightQuantBatchMatmulV2 and FFN (against float64 loops).
#include <catch2/catch.hpp>

#include <cmath>

#include "ge/error.h"
#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

// Element (i, j) of a stored matrix that may be transposed.
double At(const std::vector<double>& m, int64_t offset, int64_t rows, int64_t cols, bool transposed, int64_t i,
          int64_t j) {
  return transposed ? m[offset + j * rows + i] : m[offset + i * cols + j];
}

}  // namespace

TEST_CASE("quantized MatMulV2 with offset_x and transposes and bias is exact", "[device][quantized_matmul]") {
  std::mt19937 rng(21);
  const int64_t m = 7, k = 37, n = 19;
  for (DataType x_dtype : {DataType::kInt8, DataType::kInt16}) {
    for (bool t1 : {false, true}) {
      for (bool t2 : {false, true}) {
        const int64_t lo = x_dtype == DataType::kInt8 ? -128 : -32768, hi = -lo - 1;
        const int64_t offset_x = x_dtype == DataType::kInt8 ? -17 : 1234;
        Tensor x1 = x_dtype == DataType::kInt8
                        ? RandomInts<int8_t>(x_dtype, t1 ? Shape{k, m} : Shape{m, k}, rng, lo, hi)
                        : RandomInts<int16_t>(x_dtype, t1 ? Shape{k, m} : Shape{m, k}, rng, lo, hi);
        Tensor x2 = RandomInts<int8_t>(DataType::kInt8, t2 ? Shape{n, k} : Shape{k, n}, rng, -128, 127);
        Tensor bias = RandomInts<int32_t>(DataType::kInt32, Shape{n}, rng, -50000, 50000);
        const auto a = ToDoubles(x1), b = ToDoubles(x2);
        std::vector<double> expected;
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            int64_t acc = bias.data_as<int32_t>()[j];
            for (int64_t p = 0; p < k; ++p) {
              acc += (static_cast<int64_t>(At(a, 0, m, k, t1, i, p)) - offset_x) *
                     static_cast<int64_t>(At(b, 0, k, n, t2, p, j));
            }
            expected.push_back(static_cast<double>(acc));
          }
        }
        Graph g;
        Node* node = AddQuantOp(
            g, "MatMulV2", {g.AddInput("x1", x_dtype, x1.shape()), g.AddConstant("x2", x2), g.AddConstant("b", bias)},
            DataType::kInt32, {m, n}, {{"transpose_x1", t1}, {"transpose_x2", t2}, {"offset_x", offset_x}});
        INFO(DataTypeName(x_dtype) << " transpose_x1 " << t1 << " transpose_x2 " << t2);
        CheckClose(RunCpuKernel(*node, {x1})[0], expected, 0, 0);
      }
    }
  }
}

TEST_CASE("quantized BatchMatMulV2 broadcasts batches of constant and runtime x2", "[device][quantized_matmul]") {
  std::mt19937 rng(22);
  struct Case {
    Shape a, b;
    std::vector<int64_t> y;
    bool constant_b, adj_b;
  };
  for (const Case& c : {Case{{2, 3, 5, 8}, {8, 6}, {2, 3, 5, 6}, true, false},
                        Case{{2, 3, 5, 8}, {2, 1, 6, 8}, {2, 3, 5, 6}, false, true},
                        Case{{4, 9, 70}, {4, 70, 33}, {4, 9, 33}, false, false}}) {
    Tensor x1 = RandomInts<int8_t>(DataType::kInt8, c.a, rng, -128, 127);
    Tensor x2 = RandomInts<int8_t>(DataType::kInt8, c.b, rng, -128, 127);
    const auto a = ToDoubles(x1), b = ToDoubles(x2);
    const int64_t n = c.y.back(), k = c.a.dim(c.a.rank() - 1);
    std::vector<double> expected;
    for (int64_t e = 0; e < Shape(c.y).NumElements(); ++e) {
      const auto yi = Unravel(e, c.y);
      auto start = [&](const Shape& s) {
        std::vector<int64_t> idx(s.rank(), 0);
        for (size_t d = 0; d + 2 < s.rank(); ++d) idx[d] = s.dim(d) == 1 ? 0 : yi[d + c.y.size() - s.rank()];
        return Ravel(idx, s.dims());
      };
      const int64_t i = yi[yi.size() - 2], j = yi.back();
      int64_t acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        acc += static_cast<int64_t>(a[start(c.a) + i * k + p]) *
               static_cast<int64_t>(At(b, start(c.b), k, n, c.adj_b, p, j));
      }
      expected.push_back(static_cast<double>(acc));
    }
    Graph g;
    Value* b_value = c.constant_b ? g.AddConstant("x2", x2) : g.AddInput("x2", DataType::kInt8, c.b);
    Node* node = AddQuantOp(g, "BatchMatMulV2", {g.AddInput("x1", DataType::kInt8, c.a), b_value}, DataType::kInt32,
                            Shape(c.y), {{"adj_x2", c.adj_b}});
    INFO(c.a.ToString() << " x " << c.b.ToString());
    CheckClose(RunCpuKernel(*node, {x1, c.constant_b ? Tensor() : x2})[0], expected, 0, 0);
  }
  Graph g;
  Node* asymmetric = AddQuantOp(
      g, "BatchMatMulV2", {g.AddInput("x1", DataType::kInt8, {2, 3, 4}), g.AddInput("x2", DataType::kInt8, {4, 5})},
      DataType::kInt32, {2, 3, 5}, {{"offset_x", int64_t{2}}});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*asymmetric),
                      Catch::Contains("BatchMatMulV2_node") && Catch::Contains("offset_x"));
}

namespace {

// x [rows, K] @ ((w + offset) * scale) + bias in float64; w stored [K, N] or [N, K].
std::vector<double> WeightOnlyReference(const std::vector<double>& x, int64_t rows, int64_t k, int64_t n,
                                        const std::vector<double>& w, int64_t w_offset, bool transposed,
                                        const std::vector<double>& scale, const std::vector<double>& offset,
                                        int64_t param_offset, const std::vector<double>& bias) {
  std::vector<double> y(rows * n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < n; ++j) {
      const int64_t p = scale.size() == 1 ? 0 : param_offset + j;
      double acc = bias.empty() ? 0.0 : bias[param_offset + j];
      for (int64_t l = 0; l < k; ++l) {
        const double weight =
            scale.empty() ? At(w, w_offset, k, n, transposed, l, j)
                          : (At(w, w_offset, k, n, transposed, l, j) + (offset.empty() ? 0.0 : offset[p])) * scale[p];
        acc += x[r * k + l] * weight;
      }
      y[r * n + j] = acc;
    }
  }
  return y;
}

}  // namespace

TEST_CASE("WeightQuantBatchMatmulV2 equals x @ ((w + offset) * scale) + bias", "[device][weight_quant]") {
  std::mt19937 rng(23);
  const int64_t batch = 2, m = 5, k = 70, n = 150;  // N spans two full tiles and a partial one
  for (bool transpose_weight : {false, true}) {
    for (bool per_column : {true, false}) {
      Tensor x = RandomTensor(DataType::kFloat, {batch, m, k}, rng, -2, 2);
      Tensor w = RandomInts<int8_t>(DataType::kInt8, transpose_weight ? Shape{n, k} : Shape{k, n}, rng, -128, 127);
      const int64_t params = per_column ? n : 1;
      Tensor scale = RandomTensor(DataType::kFloat, {params}, rng, 0.001, 0.02);
      Tensor offset = RandomTensor(DataType::kFloat, {params}, rng, -3, 3);
      Tensor bias = RandomTensor(DataType::kFloat, {n}, rng, -1, 1);
      const auto expected = WeightOnlyReference(ToDoubles(x), batch * m, k, n, ToDoubles(w), 0, transpose_weight,
                                                ToDoubles(scale), ToDoubles(offset), 0, ToDoubles(bias));
      Graph g;
      Node* node =
          AddQuantOp(g, "WeightQuantBatchMatmulV2",
                     {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w", w), g.AddConstant("s", scale),
                      g.AddConstant("o", offset), nullptr, nullptr, g.AddConstant("b", bias)},
                     DataType::kFloat, {batch, m, n}, {{"transpose_weight", transpose_weight}});
      INFO("transpose_weight " << transpose_weight << " per_column " << per_column);
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-4, 1e-5);
    }
  }
  SECTION("float16 x, transpose_x, no offset nor bias") {
    Tensor x32 = RandomTensor(DataType::kFloat, {k, m}, rng, -2, 2);
    Tensor x16(DataType::kFloat16, Shape{k, m});
    std::vector<double> x_rows(m * k);
    for (int64_t l = 0; l < k; ++l) {
      for (int64_t i = 0; i < m; ++i) {
        const _Float16 v = static_cast<_Float16>(x32.data_as<float>()[l * m + i]);
        x16.data_as<_Float16>()[l * m + i] = v;
        x_rows[i * k + l] = static_cast<double>(v);
      }
    }
    Tensor w = RandomInts<int8_t>(DataType::kInt8, Shape{k, n}, rng, -128, 127);
    Tensor scale = RandomTensor(DataType::kFloat, {n}, rng, 0.001, 0.02);
    const auto expected = WeightOnlyReference(x_rows, m, k, n, ToDoubles(w), 0, false, ToDoubles(scale), {}, 0, {});
    Graph g;
    Node* node =
        AddQuantOp(g, "WeightQuantBatchMatmulV2",
                   {g.AddInput("x", DataType::kFloat16, x16.shape()), g.AddConstant("w", w), g.AddConstant("s", scale)},
                   DataType::kFloat16, {m, n}, {{"transpose_x", true}});
    CheckClose(RunCpuKernel(*node, {x16})[0], expected, 2e-3, 2e-3);
  }
  SECTION("quant_scale is refused") {
    Graph g;
    Tensor one = Tensor::FromVector<float>(DataType::kFloat, {1}, {1.0f});
    Node* node = AddQuantOp(g, "WeightQuantBatchMatmulV2",
                            {g.AddInput("x", DataType::kFloat, {2, 4}), g.AddInput("w", DataType::kInt8, {4, 3}),
                             g.AddConstant("s", one), nullptr, g.AddConstant("qs", one)},
                            DataType::kFloat, {2, 3});
    REQUIRE_THROWS_WITH(CreateCpuKernel(*node),
                        Catch::Contains("WeightQuantBatchMatmulV2_node") && Catch::Contains("quant_scale"));
  }
}

namespace {

double Activation(const std::string& name, double v) {
  if (name == "fastgelu") return v / (1.0 + std::exp(-1.702 * v));
  if (name == "gelu") return 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
  if (name == "relu") return std::max(v, 0.0);
  return v / (1.0 + std::exp(-v));  // silu
}

}  // namespace

TEST_CASE("FFN with two experts and int8 weights matches the float64 reference", "[device][ffn]") {
  std::mt19937 rng(24);
  const int64_t experts = 2, k1 = 40, n1 = 96, n2 = 24;
  const std::vector<int64_t> tokens = {3, 5};
  const int64_t m = 8;
  Tensor x = RandomTensor(DataType::kFloat, {m, k1}, rng, -1, 1);
  Tensor w1 = RandomInts<int8_t>(DataType::kInt8, Shape{experts, k1, n1}, rng, -128, 127);
  Tensor w2 = RandomInts<int8_t>(DataType::kInt8, Shape{experts, n1, n2}, rng, -128, 127);
  Tensor s1 = RandomTensor(DataType::kFloat, {experts, n1}, rng, 0.002, 0.02);
  Tensor s2 = RandomTensor(DataType::kFloat, {experts, n2}, rng, 0.002, 0.02);
  Tensor o1 = RandomTensor(DataType::kFloat, {experts, n1}, rng, -4, 4);
  Tensor o2 = RandomTensor(DataType::kFloat, {experts, n2}, rng, -4, 4);
  Tensor b1 = RandomTensor(DataType::kFloat, {experts, n1}, rng, -0.5, 0.5);
  Tensor b2 = RandomTensor(DataType::kFloat, {experts, n2}, rng, -0.5, 0.5);
  Tensor counts = Tensor::FromVector(DataType::kInt64, Shape{experts}, tokens);
  for (const std::string activation : {"fastgelu", "gelu", "relu", "silu"}) {
    const auto xv = ToDoubles(x);
    std::vector<double> expected;
    int64_t row = 0;
    for (int64_t e = 0; e < experts; ++e) {
      const std::vector<double> x_e(xv.begin() + row * k1, xv.begin() + (row + tokens[e]) * k1);
      std::vector<double> h = WeightOnlyReference(x_e, tokens[e], k1, n1, ToDoubles(w1), e * k1 * n1, false,
                                                  ToDoubles(s1), ToDoubles(o1), e * n1, ToDoubles(b1));
      for (double& v : h) v = Activation(activation, v);
      const auto y_e = WeightOnlyReference(h, tokens[e], n1, n2, ToDoubles(w2), e * n1 * n2, false, ToDoubles(s2),
                                           ToDoubles(o2), e * n2, ToDoubles(b2));
      expected.insert(expected.end(), y_e.begin(), y_e.end());
      row += tokens[e];
    }
    Graph g;
    Node* node =
        AddQuantOp(g, "FFN",
                   {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w1", w1), g.AddConstant("w2", w2),
                    g.AddInput("tokens", DataType::kInt64, {experts}), g.AddConstant("b1", b1), g.AddConstant("b2", b2),
                    nullptr, nullptr, nullptr, nullptr, g.AddConstant("s1", s1), g.AddConstant("s2", s2),
                    g.AddConstant("o1", o1), g.AddConstant("o2", o2)},
                   DataType::kFloat, {m, n2}, {{"activation", activation}});
    INFO(activation);
    CheckClose(RunCpuKernel(*node, {x, Tensor(), Tensor(), counts})[0], expected, 1e-4, 1e-4);
    Tensor bad_counts = Tensor::FromVector<int64_t>(DataType::kInt64, Shape{experts}, {3, 4});
    REQUIRE_THROWS_WITH(RunCpuKernel(*node, {x, Tensor(), Tensor(), bad_counts}),
                        Catch::Contains("FFN_node") && Catch::Contains("sum to 7"));
  }
}

TEST_CASE("FFN with one expert of float weights and its refusals", "[device][ffn]") {
  std::mt19937 rng(25);
  const int64_t m = 6, k1 = 16, n1 = 20, n2 = 12;
  Tensor x = RandomTensor(DataType::kFloat, {m, k1}, rng, -1, 1);
  Tensor w1 = RandomTensor(DataType::kFloat, {k1, n1}, rng, -0.5, 0.5);
  Tensor w2 = RandomTensor(DataType::kFloat, {n1, n2}, rng, -0.5, 0.5);
  std::vector<double> h = WeightOnlyReference(ToDoubles(x), m, k1, n1, ToDoubles(w1), 0, false, {}, {}, 0, {});
  for (double& v : h) v = Activation("relu", v);
  const auto expected = WeightOnlyReference(h, m, n1, n2, ToDoubles(w2), 0, false, {}, {}, 0, {});
  Graph g;
  Node* node = AddQuantOp(
      g, "FFN", {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w1", w1), g.AddConstant("w2", w2)},
      DataType::kFloat, {m, n2}, {{"activation", std::string("relu")}});
  CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-4, 1e-5);

  // float16 x and weights (computed in float32, y rounded to float16), silu.
  auto to_half = [](const Tensor& t) {
    Tensor half(DataType::kFloat16, t.shape());
    for (int64_t i = 0; i < t.num_elements(); ++i)
      half.data_as<_Float16>()[i] = static_cast<_Float16>(t.data_as<float>()[i]);
    return half;
  };
  const Tensor x16 = to_half(x), w1_16 = to_half(w1), w2_16 = to_half(w2);
  std::vector<double> h16 = WeightOnlyReference(ToDoubles(x16), m, k1, n1, ToDoubles(w1_16), 0, false, {}, {}, 0, {});
  for (double& v : h16) v = Activation("silu", v);
  Graph g16;
  Node* half = AddQuantOp(
      g16, "FFN",
      {g16.AddInput("x", DataType::kFloat16, x.shape()), g16.AddConstant("w1", w1_16), g16.AddConstant("w2", w2_16)},
      DataType::kFloat16, {m, n2}, {{"activation", std::string("silu")}});
  CheckClose(RunCpuKernel(*half, {x16})[0],
             WeightOnlyReference(h16, m, n1, n2, ToDoubles(w2_16), 0, false, {}, {}, 0, {}), 2e-3, 2e-3);

  Graph g2;
  Tensor one = Tensor::FromVector<float>(DataType::kFloat, {1}, {1.0f});
  Node* full =
      AddQuantOp(g2, "FFN",
                 {g2.AddInput("x", DataType::kFloat, x.shape()), g2.AddConstant("w1", w1), g2.AddConstant("w2", w2),
                  nullptr, nullptr, nullptr, nullptr, nullptr, g2.AddConstant("deq", one)},
                 DataType::kFloat, {m, n2});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*full), Catch::Contains("FFN_node") && Catch::Contains("deq_scale1"));
  Graph g3;
  Node* tanh = AddQuantOp(
      g3, "FFN", {g3.AddInput("x", DataType::kFloat, x.shape()), g3.AddConstant("w1", w1), g3.AddConstant("w2", w2)},
      DataType::kFloat, {m, n2}, {{"activation", std::string("tanh")}});
  REQUIRE_THROWS_WITH(CreateCpuKernel(*tanh), Catch::Contains("activation") && Catch::Contains("fastgelu, gelu"));
}
