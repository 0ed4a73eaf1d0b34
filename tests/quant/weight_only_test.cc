// Weight-only quantization: MatMul -> WeightQuantBatchMatmulV2 and FFN with
// int8 weights, checked against hand-computed codes and a float64 product
// with the dequantized weights.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "quant/deploy_rewrite.h"
#include "quant/layer_support.h"
#include "quant/layer_weights.h"
#include "quant/quant_config.h"
#include "test_support.h"
#include "graph_queries.h"

using ge::DataType;
using ge::Graph;
using ge::Node;
using ge::Shape;
using ge::Tensor;
using ge::Value;
using ge::quant::LayerRecord;
using ge::quant::QuantLayer;
using ge::quant::QuantRecord;
using ge::quant::WeightQuantParams;

using ge::test::NodeNamed;

namespace {

constexpr const char* kWeightOnlyConfig =
    "common_config { arq_quantize { asymmetric: true } weight_compress_only: true }";

std::vector<float> Wave(size_t count, float phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = std::sin(0.37f * static_cast<float>(i) + phase) * 0.8f + 0.1f;
  return values;
}

// Per column n of a [K, N] (or [N, K] when transposed) weight: asymmetric
// 8-bit factors from the column's min/max (both widened to include 0).
WeightQuantParams ColumnFactors(const std::vector<float>& w, int64_t k, int64_t n, bool transposed) {
  WeightQuantParams p;
  for (int64_t c = 0; c < n; ++c) {
    float lo = 0, hi = 0;
    for (int64_t r = 0; r < k; ++r) {
      const float v = w[static_cast<size_t>(transposed ? c * k + r : r * n + c)];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const float scale = (hi - lo) / 255;
    p.scale.push_back(scale);
    p.offset.push_back(static_cast<int32_t>(std::nearbyint(-lo / scale)) - 128);
  }
  return p;
}

int8_t Code(float w, float scale, int32_t offset) {
  return static_cast<int8_t>(std::clamp<double>(std::nearbyint(w / scale) + offset, -128, 127));
}

struct MatMulCase {
  std::unique_ptr<Graph> graph;
  std::vector<float> x, w, bias;
  int64_t m = 3, k = 16, n = 8;
  bool transposed = false;
};

MatMulCase BuildMatMul(const std::string& op, bool transposed, int64_t k = 16, int64_t n = 8) {
  MatMulCase c;
  c.k = k;
  c.n = n;
  c.transposed = transposed;
  c.x = Wave(static_cast<size_t>(c.m * k), 0.3f);
  c.w = Wave(static_cast<size_t>(k * n), 1.1f);
  c.bias = Wave(static_cast<size_t>(n), 2.0f);
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {c.m, k});
  const Shape w_shape = transposed ? Shape{n, k} : Shape{k, n};
  Value* w = b.Constant("w", Tensor::FromVector(DataType::kFloat, w_shape, c.w));
  Value* y = nullptr;
  if (op == "MatMulV2") {
    Value* bias = b.Constant("bias", Tensor::FromVector(DataType::kFloat, {n}, c.bias));
    y = b.MatMul(x, w, bias, false, transposed, "mm");
  } else {
    c.bias.assign(static_cast<size_t>(n), 0.0f);
    y = b.BatchMatMul(x, w, false, transposed, "mm");
  }
  b.Output(b.Relu(y, "relu"));
  c.graph = b.Build();
  return c;
}

}  // namespace

TEST_CASE("weight-only: MatMul becomes WeightQuantBatchMatmulV2 and matches the dequantized product", "[weight_only]") {
  for (const std::string op : {"MatMulV2", "BatchMatMulV2"}) {
    for (bool transposed : {false, true}) {
      INFO(op << " transposed " << transposed);
      MatMulCase c = BuildMatMul(op, transposed);
      const auto layers = ge::quant::PlanQuantLayers(*c.graph, ge::quant::ParseQuantConfig(kWeightOnlyConfig, "t"));
      REQUIRE(layers.size() == 1);
      REQUIRE(layers[0].quantize);
      LayerRecord record;
      record.weights = ColumnFactors(c.w, c.k, c.n, transposed);
      const WeightQuantParams& f = *record.weights;
      auto deploy = ge::quant::BuildDeployGraph(*c.graph, layers, {{"mm", record}});

      const Node& mm = NodeNamed(*deploy, "mm");
      CHECK(mm.op_type() == "WeightQuantBatchMatmulV2");
      CHECK(mm.attrs().GetBool("transpose_weight") == transposed);
      CHECK(mm.attrs().GetString("_quant_layer") == "mm");
      CHECK(mm.output(0)->name() == "mm");
      CHECK(NodeNamed(*deploy, "relu").input(0) == mm.output(0));
      const Tensor& weight = *mm.input(1)->constant();
      REQUIRE(weight.dtype() == DataType::kInt8);
      CHECK(weight.nbytes() * 4 == c.w.size() * sizeof(float));
      std::vector<int8_t> codes(c.w.size());
      for (int64_t r = 0; r < c.k; ++r) {
        for (int64_t col = 0; col < c.n; ++col) {
          const auto i = static_cast<size_t>(transposed ? col * c.k + r : r * c.n + col);
          codes[i] = Code(c.w[i], f.scale[col], f.offset[col]);
        }
      }
      CHECK(std::vector<int8_t>(weight.values<int8_t>().begin(), weight.values<int8_t>().end()) == codes);
      const auto offsets = mm.input(3)->constant()->values<float>();
      for (int64_t col = 0; col < c.n; ++col) CHECK(offsets[col] == -static_cast<float>(f.offset[col]));
      CHECK(mm.input(4) == nullptr);  // quant_scale
      CHECK(mm.input(5) == nullptr);  // quant_offset

      auto model = ge::CompiledModel::Compile(std::move(deploy));
      const Tensor y = model->Run({Tensor::FromVector(DataType::kFloat, {c.m, c.k}, c.x)})[0];
      double max_diff = 0;
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t col = 0; col < c.n; ++col) {
          double acc = c.bias[col];
          for (int64_t r = 0; r < c.k; ++r) {
            const auto wi = static_cast<size_t>(transposed ? col * c.k + r : r * c.n + col);
            acc += static_cast<double>(c.x[i * c.k + r]) * (codes[wi] - f.offset[col]) * f.scale[col];
          }
          max_diff = std::max(max_diff, std::fabs(y.data_as<float>()[i * c.n + col] - std::max(acc, 0.0)));
        }
      }
      CHECK(max_diff < 1e-5);
    }
  }
}

TEST_CASE("weight-only: the saved model's weight is 4x smaller than float32", "[weight_only]") {
  MatMulCase c = BuildMatMul("MatMulV2", false, 256, 256);
  const auto layers = ge::quant::PlanQuantLayers(*c.graph, ge::quant::ParseQuantConfig(kWeightOnlyConfig, "t"));
  LayerRecord record;
  record.weights = ColumnFactors(c.w, c.k, c.n, false);
  auto quantized = ge::CompiledModel::Compile(ge::quant::BuildDeployGraph(*c.graph, layers, {{"mm", record}}));
  auto original = ge::CompiledModel::Compile(c.graph->Clone());
  const std::filesystem::path dir = ge::test::TempDir("weight_only_gem");
  quantized->Save((dir / "quantized.gem").string());
  original->Save((dir / "float.gem").string());
  const auto float_bytes = std::filesystem::file_size(dir / "float.gem");
  const auto quantized_bytes = std::filesystem::file_size(dir / "quantized.gem");
  INFO("float " << float_bytes << " bytes, quantized " << quantized_bytes << " bytes");
  // 256 KiB of float weight become 64 KiB of int8 plus 2 KiB of per-column factors.
  CHECK(float_bytes - quantized_bytes >= 256 * 256 * 3 - 4096);
  CHECK(quantized->memory().const_bytes * 3 < original->memory().const_bytes);
}

TEST_CASE("weight-only: a missing weight record is an error naming the layer", "[weight_only]") {
  MatMulCase c = BuildMatMul("MatMulV2", false);
  const auto layers = ge::quant::PlanQuantLayers(*c.graph, ge::quant::ParseQuantConfig(kWeightOnlyConfig, "t"));
  auto [code, message] = ge::test::ErrorOf([&] { ge::quant::BuildDeployGraph(*c.graph, layers, {{"mm", {}}}); });
  CHECK(code == ge::ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("'mm'") && Catch::Contains("weight factors"));
}

TEST_CASE("weight-only: FFN gets int8 weights with per expert, per column antiquant factors", "[weight_only]") {
  const int64_t experts = 2, m = 4, k1 = 8, n1 = 6, n2 = 5;
  std::vector<float> x = Wave(static_cast<size_t>(m * k1), 0.2f);
  std::vector<float> w1 = Wave(static_cast<size_t>(experts * k1 * n1), 0.7f);
  std::vector<float> w2 = Wave(static_cast<size_t>(experts * n1 * n2), 1.9f);
  auto halves = [](const std::vector<float>& v) { return std::vector<_Float16>(v.begin(), v.end()); };
  auto widen = [](std::vector<float> v) {
    for (float& f : v) f = static_cast<float>(static_cast<_Float16>(f));
    return v;
  };
  ge::GraphBuilder b;
  Value* xv = b.Input("x", DataType::kFloat16, {m, k1});
  Value* tokens = b.Constant("tokens", Tensor::FromVector<int64_t>(DataType::kInt64, {experts}, {1, 3}));
  Value* w1v = b.Constant("w1", Tensor::FromVector(DataType::kFloat16, {experts, k1, n1}, halves(w1)));
  Value* w2v = b.Constant("w2", Tensor::FromVector(DataType::kFloat16, {experts, n1, n2}, halves(w2)));
  b.Output(b.Op("FFN", {xv, w1v, w2v, tokens}, {{"activation", std::string("relu")}}, 1, "ffn")[0]);
  auto graph = b.Build();
  w1 = widen(w1);
  w2 = widen(w2);
  const auto layers = ge::quant::PlanQuantLayers(
      *graph, ge::quant::ParseQuantConfig("common_config { weight_compress_only: true }", "t"));
  REQUIRE(layers.size() == 1);
  REQUIRE(layers[0].quantize);
  LayerRecord record;
  record.weights = ge::quant::CalibrateLayerWeights(*graph->FindNode("ffn"), layers[0]);
  const WeightQuantParams& f = *record.weights;
  // Symmetric ARQ per (expert, column): scale = the larger-magnitude extreme / 127 (or / -128 when negative).
  REQUIRE(f.scale.size() == static_cast<size_t>(experts * (n1 + n2)));
  auto expected_scale = [](const std::vector<float>& w, int64_t e, int64_t rows, int64_t cols, int64_t col) {
    float lo = 0, hi = 0;
    for (int64_t r = 0; r < rows; ++r) {
      lo = std::min(lo, w[static_cast<size_t>((e * rows + r) * cols + col)]);
      hi = std::max(hi, w[static_cast<size_t>((e * rows + r) * cols + col)]);
    }
    return hi >= -lo ? hi / 127 : lo / -128;
  };
  for (int64_t e = 0; e < experts; ++e) {
    for (int64_t col = 0; col < n1; ++col) {
      CHECK(f.scale[e * n1 + col] == Approx(expected_scale(w1, e, k1, n1, col)).epsilon(1e-6));
    }
    for (int64_t col = 0; col < n2; ++col) {
      CHECK(f.scale[experts * n1 + e * n2 + col] == Approx(expected_scale(w2, e, n1, n2, col)).epsilon(1e-6));
    }
  }

  auto deploy = ge::quant::BuildDeployGraph(*graph, layers, {{"ffn", record}});
  const Node& ffn = NodeNamed(*deploy, "ffn");
  REQUIRE(ffn.input(1)->dtype() == DataType::kInt8);
  REQUIRE(ffn.input(2)->dtype() == DataType::kInt8);
  CHECK(ffn.input(10)->shape() == Shape{experts, n1});
  CHECK(ffn.input(11)->shape() == Shape{experts, n2});
  CHECK(ffn.input(12)->shape() == Shape{experts, n1});
  const auto q1 = ffn.input(1)->constant()->values<int8_t>();
  const auto q2 = ffn.input(2)->constant()->values<int8_t>();
  const auto s1 = ffn.input(10)->constant()->values<float>();
  const auto s2 = ffn.input(11)->constant()->values<float>();
  for (int64_t e = 0; e < experts; ++e) {
    for (int64_t r = 0; r < k1; ++r) {
      for (int64_t col = 0; col < n1; ++col) {
        const auto i = static_cast<size_t>((e * k1 + r) * n1 + col);
        CHECK(q1[i] == Code(w1[i], f.scale[e * n1 + col], 0));
      }
    }
  }

  // Float64 reference with the dequantized weights: rows 0 | 1..3 go to experts 0 | 1.
  auto model = ge::CompiledModel::Compile(std::move(deploy));
  const Tensor y = model->Run({Tensor::FromVector(DataType::kFloat16, {m, k1}, halves(x))})[0];
  x = widen(x);
  double max_rel = 0;
  for (int64_t row = 0; row < m; ++row) {
    const int64_t e = row == 0 ? 0 : 1;
    std::vector<double> h(static_cast<size_t>(n1));
    for (int64_t col = 0; col < n1; ++col) {
      double acc = 0;
      for (int64_t r = 0; r < k1; ++r) acc += x[row * k1 + r] * q1[(e * k1 + r) * n1 + col] * s1[e * n1 + col];
      h[col] = std::max(acc, 0.0);
    }
    for (int64_t col = 0; col < n2; ++col) {
      double acc = 0;
      for (int64_t r = 0; r < n1; ++r) acc += h[r] * q2[(e * n1 + r) * n2 + col] * s2[e * n2 + col];
      const double got = static_cast<float>(y.data_as<_Float16>()[row * n2 + col]);
      max_rel = std::max(max_rel, std::fabs(got - acc) / std::max(1.0, std::fabs(acc)));
    }
  }
  CHECK(max_rel < 2e-3);  // float16 output
}

TEST_CASE("weight-only: a MatMul that is a graph output keeps its output slot and name", "[weight_only]") {
  ge::GraphBuilder b;
  Value* x = b.Input("x", DataType::kFloat, {2, 4});
  Value* mm = b.MatMul(x, b.Constant("w", Tensor::FromVector(DataType::kFloat, {4, 3}, Wave(12, 0.5f))), nullptr, false,
                       false, "mm");
  b.Outputs({b.Relu(x, "first"), mm});
  auto graph = b.Build();
  const auto layers = ge::quant::PlanQuantLayers(*graph, ge::quant::ParseQuantConfig(kWeightOnlyConfig, "t"));
  LayerRecord record;
  record.weights = ColumnFactors(Wave(12, 0.5f), 4, 3, false);
  auto deploy = ge::quant::BuildDeployGraph(*graph, layers, {{"mm", record}});
  REQUIRE(deploy->outputs().size() == 2);
  CHECK(deploy->outputs()[0]->name() == "first");
  CHECK(deploy->outputs()[1]->name() == "mm");
  CHECK(deploy->outputs()[1]->producer()->op_type() == "WeightQuantBatchMatmulV2");
  CHECK(deploy->outputs()[1]->shape() == Shape{2, 3});
  CHECK(deploy->FindNode("w") == nullptr);  // the float weight is gone
}
