// The decomposed LayerNorm and GELU and the MatMul + Add linear layers that
// ONNX exporters write, built with the GraphBuilder in the variants the fusion
// passes accept, together with float64 references of the formulas. Shared by
// the pass tests (tests/passes, structure) and the end-to-end checks
// (tests/e2e, numbers).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/builder.h"
#include "ge/graph.h"
#include "test_support.h"

namespace ge::test {

inline Tensor ScalarFloat(float value) { return Tensor::FromVector(DataType::kFloat, Shape{}, std::vector{value}); }

// A built pattern: the graph and its values by role, for tests that rewire
// an intermediate ("d", "std", ...) before running the pass.
struct PatternGraph {
  std::unique_ptr<Graph> graph;
  std::map<std::string, Value*> values;
  Value* value(const std::string& role) const { return values.at(role); }
};

// Makes the pattern's `role` value observable outside it, one way per Catch
// SECTION: read by another node, or a graph output next to y. A fusion must
// then leave the pattern alone.
inline void ObserveOutside(PatternGraph& g, const std::string& role) {
  Graph& graph = *g.graph;
  SECTION("read by another node") {
    Node* reader = graph.AddNode("Relu", "reader", {g.value(role)});
    graph.SetOutputs({g.value("y"), reader->output(0)});
  }
  SECTION("a graph output") { graph.SetOutputs({g.value("y"), g.value(role)}); }
}

struct LayerNormPattern {
  Shape shape{2, 3, 8};
  std::vector<int64_t> axes{-1};       // of both ReduceMeanD
  std::vector<int64_t> variance_axes;  // when not empty: the second ReduceMeanD's axes
  bool square_by_mul = false;          // Mul(d, d) instead of Pow(d, 2)
  bool reciprocal = false;             // Mul(d, Reciprocal(Sqrt(.))) instead of Div(d, Sqrt(.))
  bool gamma = true;
  bool beta = true;
  bool constants_first = false;  // Add(eps, var), Mul(gamma, n), Add(beta, .)
  float epsilon = 1e-5f;
  float exponent = 2.0f;
  uint32_t seed = 11;
};

// The normalized trailing dims of the pattern (the shape of gamma and beta).
inline Shape NormalizedShape(const LayerNormPattern& p) {
  const auto& dims = p.shape.dims();
  return Shape(std::vector<int64_t>(dims.end() - static_cast<int64_t>(p.axes.size()), dims.end()));
}

// x -> ReduceMeanD -> Sub -> Pow -> ReduceMeanD -> Add(eps) -> Sqrt -> Div -> Mul(gamma) -> Add(beta) -> "y".
inline PatternGraph BuildLayerNormPattern(const LayerNormPattern& p) {
  GraphBuilder b("layer_norm");
  PatternGraph g;
  auto& v = g.values;
  auto ordered = [&](Value* value, Value* constant) {
    return p.constants_first ? std::pair{constant, value} : std::pair{value, constant};
  };
  v["x"] = b.Input("x", DataType::kFloat, p.shape);
  const std::map<std::string, AttrValue> reduce{{"axes", p.axes}, {"keep_dims", true}};
  const std::map<std::string, AttrValue> reduce_variance{{"axes", p.variance_axes.empty() ? p.axes : p.variance_axes},
                                                         {"keep_dims", true}};
  v["mean"] = b.Op("ReduceMeanD", {v["x"]}, reduce, 1, "mean")[0];
  v["d"] = b.Sub(v["x"], v["mean"], "d");
  v["square"] = p.square_by_mul ? b.Mul(v["d"], v["d"], "square")
                                : b.Op("Pow", {v["d"], b.Constant("two", ScalarFloat(p.exponent))}, {}, 1, "square")[0];
  v["var"] = b.Op("ReduceMeanD", {v["square"]}, reduce_variance, 1, "var")[0];
  auto [var, eps] = ordered(v["var"], b.Constant("eps", ScalarFloat(p.epsilon)));
  v["var_eps"] = b.Add(var, eps, "var_eps");
  v["std"] = b.Op("Sqrt", {v["var_eps"]}, {}, 1, "std")[0];
  const std::string n_name = p.gamma || p.beta ? "n" : "y";  // the graph's output is always "y"
  if (p.reciprocal) {
    v["inv_std"] = b.Op("Reciprocal", {v["std"]}, {}, 1, "inv_std")[0];
    v["n"] = b.Mul(v["d"], v["inv_std"], n_name);
  } else {
    v["n"] = b.Div(v["d"], v["std"], n_name);
  }
  Value* y = v["n"];
  if (p.gamma) {
    v["gamma"] = b.Constant("gamma", RandomFloats(NormalizedShape(p), p.seed + 1, 0.5f, 1.5f));
    auto [n, gamma] = ordered(y, v["gamma"]);
    y = v["scaled"] = b.Mul(n, gamma, p.beta ? "scaled" : "y");
  }
  if (p.beta) {
    v["beta"] = b.Constant("beta", RandomFloats(NormalizedShape(p), p.seed + 2, -0.5f, 0.5f));
    auto [n, beta] = ordered(y, v["beta"]);
    y = b.Add(n, beta, "y");
  }
  v["y"] = y;
  b.Output(y);
  g.graph = b.Build();
  return g;
}

// The float64 layer normalization of x over the pattern's trailing axes.
inline std::vector<double> ReferenceLayerNorm(const LayerNormPattern& p, const PatternGraph& g, const Tensor& x) {
  const int64_t cols = NormalizedShape(p).NumElements();
  const int64_t rows = x.num_elements() / cols;
  auto parameter = [&](const std::string& role, int64_t c, double absent) {
    auto it = g.values.find(role);
    return it == g.values.end() ? absent : static_cast<double>(it->second->constant()->data_as<float>()[c]);
  };
  std::vector<double> y(x.num_elements());
  const float* in = x.data_as<float>();
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, variance = 0;
    for (int64_t c = 0; c < cols; ++c) mean += in[r * cols + c];
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c) variance += (in[r * cols + c] - mean) * (in[r * cols + c] - mean);
    variance /= cols;
    for (int64_t c = 0; c < cols; ++c) {
      const double n = (in[r * cols + c] - mean) / std::sqrt(variance + p.epsilon);
      y[r * cols + c] = n * parameter("gamma", c, 1.0) + parameter("beta", c, 0.0);
    }
  }
  return y;
}

enum class GeluForm {
  kHalfLast,   // Mul(Mul(x, a), 0.5): torch.nn.functional.gelu
  kHalfOfSum,  // Mul(x, Mul(a, 0.5))
  kHalfFirst,  // Mul(Mul(x, 0.5), a): BERT/TensorFlow
};

struct GeluPattern {
  Shape shape{2, 4, 16};
  GeluForm form = GeluForm::kHalfLast;
  bool scale_by_mul = false;     // Mul(x, 1/sqrt(2)) instead of Div(x, sqrt(2))
  bool constants_first = false;  // Add(1, erf), Mul(0.5, .), Mul(a, x) ...
  float sqrt2 = 1.41421356f;     // the Div constant (its inverse for Mul)
  float one = 1.0f;
  float half = 0.5f;
};

// x -> Div(sqrt 2) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5) -> "y", in the chosen form.
inline PatternGraph BuildGeluPattern(const GeluPattern& p) {
  GraphBuilder b("gelu");
  PatternGraph g;
  auto& v = g.values;
  auto ordered = [&](Value* value, Value* other) {
    return p.constants_first ? std::pair{other, value} : std::pair{value, other};
  };
  v["x"] = b.Input("x", DataType::kFloat, p.shape);
  v["s"] = p.scale_by_mul ? b.Mul(v["x"], b.Constant("inv_sqrt2", ScalarFloat(1.0f / p.sqrt2)), "s")
                          : b.Div(v["x"], b.Constant("sqrt2", ScalarFloat(p.sqrt2)), "s");
  v["erf"] = b.Op("Erf", {v["s"]}, {}, 1, "erf")[0];
  auto [erf, one] = ordered(v["erf"], b.Constant("one", ScalarFloat(p.one)));
  v["a"] = b.Add(erf, one, "a");
  Value* half = b.Constant("half", ScalarFloat(p.half));
  switch (p.form) {
    case GeluForm::kHalfLast: {
      auto [a, x] = ordered(v["a"], v["x"]);
      v["m"] = b.Mul(a, x, "m");
      auto [m, h] = ordered(v["m"], half);
      v["y"] = b.Mul(m, h, "y");
      break;
    }
    case GeluForm::kHalfOfSum: {
      auto [a, h] = ordered(v["a"], half);
      v["m"] = b.Mul(a, h, "m");
      auto [x, m] = ordered(v["x"], v["m"]);
      v["y"] = b.Mul(x, m, "y");
      break;
    }
    case GeluForm::kHalfFirst: {
      auto [x, h] = ordered(v["x"], half);
      v["m"] = b.Mul(x, h, "m");
      auto [m, a] = ordered(v["m"], v["a"]);
      v["y"] = b.Mul(m, a, "y");
      break;
    }
  }
  b.Output(v["y"]);
  g.graph = b.Build();
  return g;
}

inline double ReferenceGelu(double x) { return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0))); }

struct LinearPattern {
  Shape x_shape{2, 3, 8};  // rank 2: MatMulV2, else BatchMatMulV2
  int64_t n = 5;           // output columns
  Shape bias_shape{5};
  bool bias_first = false;  // Add(bias, product)
};

// x -> MatMulV2|BatchMatMulV2(x, w) "mm" -> Add(bias) "y": the torch.nn.Linear export.
inline PatternGraph BuildLinearPattern(const LinearPattern& p) {
  GraphBuilder b("linear");
  PatternGraph g;
  auto& v = g.values;
  v["x"] = b.Input("x", DataType::kFloat, p.x_shape);
  v["w"] = b.Constant("w", RandomFloats(Shape{p.x_shape.dims().back(), p.n}, 21, -1.0f, 1.0f));
  v["bias"] = b.Constant("bias", RandomFloats(p.bias_shape, 22, -1.0f, 1.0f));
  v["mm"] = p.x_shape.rank() == 2 ? b.MatMul(v["x"], v["w"], nullptr, false, false, "mm")
                                  : b.BatchMatMul(v["x"], v["w"], false, false, "mm");
  v["y"] = p.bias_first ? b.Add(v["bias"], v["mm"], "y") : b.Add(v["mm"], v["bias"], "y");
  b.Output(v["y"]);
  g.graph = b.Build();
  return g;
}

// x @ w + bias in float64, bias broadcast along the rows.
inline std::vector<double> ReferenceLinear(const LinearPattern& p, const PatternGraph& g, const Tensor& x) {
  const float* w = g.value("w")->constant()->data_as<float>();
  const float* bias = g.value("bias")->constant()->data_as<float>();
  const int64_t k = p.x_shape.dims().back();
  const int64_t rows = p.x_shape.NumElements() / k;
  std::vector<double> y(rows * p.n);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < p.n; ++c) {
      double sum = bias[c];
      for (int64_t i = 0; i < k; ++i) sum += static_cast<double>(x.data_as<float>()[r * k + i]) * w[i * p.n + c];
      y[r * p.n + c] = sum;
    }
  }
  return y;
}

// How many nodes have this op type.
inline size_t CountOpType(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

}  // namespace ge::test
