// The decomposed LayerNorm and GELU and the MatMul + bias Add of ONNX
// transformer exports, compiled with the built-in pipeline: layer_norm_fusion,
// gelu_fusion and matmul_bias_fusion turn them into single nodes, and the
// compiled model still computes the formulas (float64 references). Structure
// and the cases that must not fuse: tests/passes.
#include <catch2/catch.hpp>
#include <cmath>

#include "fusion_patterns.h"
#include "ge/compiled_model.h"

namespace ge::test {
namespace {

// Float32 rounding of O(1) results through a handful of operations.
constexpr double kFloatTolerance = 2e-6;

double MaxAbsDiffToReference(const Tensor& actual, const std::vector<double>& expected) {
  REQUIRE(actual.dtype() == DataType::kFloat);
  REQUIRE(actual.num_elements() == static_cast<int64_t>(expected.size()));
  double worst = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    worst = std::max(worst, std::abs(actual.data_as<float>()[i] - expected[i]));
  }
  return worst;
}

const Node* OnlyNodeOfType(const Graph& graph, const std::string& op_type) {
  const Node* found = nullptr;
  for (const Node* node : graph.nodes()) {
    if (node->op_type() != op_type) continue;
    REQUIRE(found == nullptr);
    found = node;
  }
  REQUIRE(found != nullptr);
  return found;
}

}  // namespace

TEST_CASE("A compiled decomposed LayerNorm runs as one LayerNorm and computes the normalization") {
  LayerNormPattern p;
  p.shape = Shape{3, 5, 64};
  p.square_by_mul = GENERATE(false, true);
  p.reciprocal = GENERATE(false, true);
  p.gamma = p.beta = GENERATE(true, false);
  CAPTURE(p.square_by_mul, p.reciprocal, p.gamma);
  PatternGraph g = BuildLayerNormPattern(p);
  // An offset mean and a spread of a few units, like residual-stream activations.
  const Tensor x = RandomFloats(p.shape, 3, -2.0f, 6.0f);
  const std::vector<double> expected = ReferenceLayerNorm(p, g, x);

  const auto compiled = CompiledModel::Compile(std::move(g.graph));
  CHECK(CountOpType(compiled->graph(), "ReduceMeanD") == 0);
  const Node* ln = OnlyNodeOfType(compiled->graph(), "LayerNorm");
  // The default options ask the LayerNorm op type for its fast mode; the fused
  // node keeps the precise one its ReduceMeanD, Sqrt and Div ran.
  CHECK(ln->attrs().GetString("_op_impl_mode") == "high_precision");
  REQUIRE(compiled->outputs().size() == 1);
  CHECK(compiled->outputs()[0].name == "y");
  const std::vector<Tensor> outputs = compiled->Run({x});
  CHECK(MaxAbsDiffToReference(outputs[0], expected) <= kFloatTolerance);
}

TEST_CASE("A compiled erf GELU runs as one Gelu and computes the erf form") {
  GeluPattern p;
  p.form = GENERATE(GeluForm::kHalfLast, GeluForm::kHalfOfSum, GeluForm::kHalfFirst);
  p.scale_by_mul = GENERATE(false, true);
  CAPTURE(static_cast<int>(p.form), p.scale_by_mul);
  PatternGraph g = BuildGeluPattern(p);
  const Tensor x = RandomFloats(p.shape, 5, -6.0f, 6.0f);
  std::vector<double> expected(x.num_elements());
  for (int64_t i = 0; i < x.num_elements(); ++i) expected[i] = ReferenceGelu(x.data_as<float>()[i]);

  const auto compiled = CompiledModel::Compile(std::move(g.graph));
  CHECK(CountOpType(compiled->graph(), "Erf") == 0);
  const Node* gelu = OnlyNodeOfType(compiled->graph(), "Gelu");
  // Not the tanh approximation the default options pick for Gelu nodes: the
  // replaced Erf ran its precise implementation.
  CHECK(gelu->attrs().GetString("_op_impl_mode") == "high_precision");
  const std::vector<Tensor> outputs = compiled->Run({x});
  CHECK(MaxAbsDiffToReference(outputs[0], expected) <= kFloatTolerance);
}

TEST_CASE("A compiled MatMul plus bias Add runs as one product with a bias") {
  LinearPattern p;
  p.x_shape = GENERATE(Shape{2, 7, 64}, Shape{7, 64});
  p.n = 24;
  p.bias_shape = Shape{24};
  CAPTURE(p.x_shape.ToString());
  PatternGraph g = BuildLinearPattern(p);
  const Tensor x = RandomFloats(p.x_shape, 13, -1.0f, 1.0f);
  const std::vector<double> expected = ReferenceLinear(p, g, x);

  const auto compiled = CompiledModel::Compile(std::move(g.graph));
  CHECK(CountOpType(compiled->graph(), "Add") == 0);
  const Node* product = OnlyNodeOfType(compiled->graph(), p.x_shape.rank() == 2 ? "MatMulV2" : "BatchMatMulV2");
  CHECK(product->input(2) != nullptr);
  // 64 float32 products of O(1) terms.
  CHECK(MaxAbsDiffToReference(compiled->Run({x})[0], expected) <= 1e-5);
}

TEST_CASE("Fast modes for every op make the fused nodes fast too") {
  const Options options{{"ge.opSelectImplmode", "high_performance_for_all"}};
  const auto gelu = CompiledModel::Compile(BuildGeluPattern({}).graph, options);
  CHECK(OnlyNodeOfType(gelu->graph(), "Gelu")->attrs().GetString("_op_impl_mode") == "high_performance");
  const auto ln = CompiledModel::Compile(BuildLayerNormPattern({}).graph, options);
  CHECK(OnlyNodeOfType(ln->graph(), "LayerNorm")->attrs().GetString("_op_impl_mode") == "high_performance");
}

TEST_CASE("Under force_fp16 the fusions run on the float16 nodes") {
  const Options options{{"ge.exec.precision_mode", "force_fp16"}};
  LayerNormPattern ln_pattern;
  PatternGraph ln_graph = BuildLayerNormPattern(ln_pattern);
  const Tensor x = RandomFloats(ln_pattern.shape, 7, -2.0f, 2.0f);
  const std::vector<double> expected = ReferenceLayerNorm(ln_pattern, ln_graph, x);
  const auto compiled = CompiledModel::Compile(std::move(ln_graph.graph), options);
  const Node* ln = OnlyNodeOfType(compiled->graph(), "LayerNorm");
  CHECK(ln->output(0)->dtype() == DataType::kFloat16);
  // float16 inputs, gamma and beta (3 significant digits) and a float16 result.
  CHECK(MaxAbsDiffToReference(compiled->Run({x})[0], expected) <= 1e-2);

  const auto gelu = CompiledModel::Compile(BuildGeluPattern({}).graph, options);
  CHECK(OnlyNodeOfType(gelu->graph(), "Gelu")->output(0)->dtype() == DataType::kFloat16);
}

TEST_CASE("Switched off, the fusions leave the decomposition, which computes the same") {
  LayerNormPattern p;
  const Tensor x = RandomFloats(p.shape, 9, -1.0f, 3.0f);
  const auto fused = CompiledModel::Compile(BuildLayerNormPattern(p).graph);
  const auto decomposed = CompiledModel::Compile(
      BuildLayerNormPattern(p).graph, {{"ge.disablePasses", "layer_norm_fusion,gelu_fusion,matmul_bias_fusion"}});
  CHECK(CountOpType(decomposed->graph(), "LayerNorm") == 0);
  CHECK(CountOpType(decomposed->graph(), "ReduceMeanD") == 2);
  const Tensor a = fused->Run({x})[0];
  const Tensor b = decomposed->Run({x})[0];
  double worst = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    worst = std::max(worst, static_cast<double>(std::abs(a.data_as<float>()[i] - b.data_as<float>()[i])));
  }
  CHECK(worst <= kFloatTolerance);
}

}  // namespace ge::test
