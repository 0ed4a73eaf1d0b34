// The ops with two implementation modes (high_precision / high_performance),
// each as one node of a typical shape with inputs drawn across its useful
// range. Shared by tests/device/impl_mode_accuracy_test.cc (accuracy against
// float64) and benchmarks/impl_mode_benchmark.cc (throughput); header-only,
// without Catch2.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::test {

// How one input's values are drawn: uniform in [lo, hi), or log-uniform in
// [lo, hi) (lo > 0) with a random sign when `signed_log`.
struct InputRange {
  double lo = -1, hi = 1;
  bool log_uniform = false;
  bool signed_log = false;
  bool constant = false;  // a Const input (weights, gamma/beta): kernels may pack it once
};

struct ModeCase {
  std::string op;
  std::vector<Shape> inputs;
  std::vector<InputRange> ranges;
  Shape output;
};

inline const std::vector<ModeCase>& ModeCases() {
  const InputRange kUnit{0, 1}, kWeights{0, 1, false, false, true};
  const InputRange kPositive{1e-3, 1e3, true}, kSignedWide{1e-3, 1e3, true, true};
  const Shape kFlat{65536}, kRows{64, 1024};
  static const std::vector<ModeCase> cases = {
      {"Exp", {kFlat}, {{-10, 10}}, kFlat},
      {"Log", {kFlat}, {kPositive}, kFlat},
      {"Tanh", {kFlat}, {{-5, 5}}, kFlat},
      {"Sigmoid", {kFlat}, {{-10, 10}}, kFlat},
      {"Gelu", {kFlat}, {{-5, 5}}, kFlat},
      {"Erf", {kFlat}, {{-3, 3}}, kFlat},
      {"Sqrt", {kFlat}, {kPositive}, kFlat},
      {"Reciprocal", {kFlat}, {kSignedWide}, kFlat},
      {"Div", {kFlat, kFlat}, {{-10, 10}, {1e-2, 1e2, true, true}}, kFlat},
      {"Pow", {kFlat, kFlat}, {{0.1, 10, true}, {-3, 3}}, kFlat},
      {"SoftmaxV2", {kRows}, {{-10, 10}}, kRows},
      {"LogSoftmaxV2", {kRows}, {{-10, 10}}, kRows},
      {"LayerNorm",
       {kRows, Shape{1024}, Shape{1024}},
       {{-3, 3}, {0.5, 1.5, false, false, true}, {-1, 1, false, false, true}},
       kRows},
      {"ReduceMeanD", {kRows}, {kUnit}, Shape{64}},
      {"AvgPoolV2", {Shape{1, 16, 64, 64}}, {kUnit}, Shape{1, 16, 64, 64}},
      {"MatMulV2", {Shape{128, 256}, Shape{256, 128}}, {kUnit, kWeights}, Shape{128, 128}},
      {"BatchMatMulV2", {Shape{8, 64, 128}, Shape{8, 128, 64}}, {kUnit, kUnit}, Shape{8, 64, 64}},
      {"Conv2D", {Shape{1, 32, 32, 32}, Shape{32, 32, 3, 3}}, {kUnit, kWeights}, Shape{1, 32, 32, 32}},
  };
  return cases;
}

// `value` rounded to the nearest element of dtype (float32, float16 or
// bfloat16) and stored at element i of t.
inline void SetElement(Tensor& t, int64_t i, double value) {
  switch (t.dtype()) {
    case DataType::kFloat: t.data_as<float>()[i] = static_cast<float>(value); break;
    case DataType::kFloat16: t.data_as<_Float16>()[i] = static_cast<_Float16>(value); break;
    case DataType::kBFloat16: {
      // Round the float32 to its upper 16 bits, to nearest even.
      const float f = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      bits += 0x7FFF + ((bits >> 16) & 1);
      t.data_as<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
      break;
    }
    default: t.data_as<double>()[i] = value; break;
  }
}

inline Tensor DrawInput(const InputRange& range, const Shape& shape, DataType dtype, std::mt19937& rng) {
  Tensor t(dtype, shape);
  std::uniform_real_distribution<double> uniform(range.log_uniform ? std::log(range.lo) : range.lo,
                                                 range.log_uniform ? std::log(range.hi) : range.hi);
  std::bernoulli_distribution negative(0.5);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = uniform(rng);
    if (range.log_uniform) v = std::exp(v) * (range.signed_log && negative(rng) ? -1 : 1);
    SetElement(t, i, v);
  }
  return t;
}

inline std::vector<Tensor> DrawInputs(const ModeCase& c, DataType dtype, std::mt19937& rng) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < c.inputs.size(); ++i) inputs.push_back(DrawInput(c.ranges[i], c.inputs[i], dtype, rng));
  return inputs;
}

// The case's node in g, its inputs of dtype (the constant ones from
// `inputs`), its attributes, output and the applied implementation mode.
inline Node* AddModeNode(Graph& g, const ModeCase& c, DataType dtype, const std::vector<Tensor>& inputs,
                         std::string_view mode) {
  std::vector<Value*> values;
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    values.push_back(c.ranges[i].constant ? g.AddConstant(name, inputs[i]) : g.AddInput(name, dtype, c.inputs[i]));
  }
  Node* node = g.AddNode(c.op, c.op, values);
  AttrMap& attrs = node->attrs();
  if (c.op == "SoftmaxV2" || c.op == "LogSoftmaxV2") attrs.Set("axes", std::vector<int64_t>{-1});
  if (c.op == "LayerNorm") {
    attrs.Set("begin_norm_axis", int64_t{-1});
    attrs.Set("begin_params_axis", int64_t{-1});
    attrs.Set("epsilon", 1e-5f);
  }
  if (c.op == "ReduceMeanD") {
    attrs.Set("axes", std::vector<int64_t>{-1});
    attrs.Set("keep_dims", false);
  }
  if (c.op == "AvgPoolV2" || c.op == "Conv2D") {
    attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1});
    attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
    attrs.Set("data_format", std::string("NCHW"));
  }
  if (c.op == "AvgPoolV2") {
    attrs.Set("ksize", std::vector<int64_t>{1, 1, 3, 3});
    attrs.Set("exclusive", true);
    attrs.Set("ceil_mode", false);
    attrs.Set("global_pooling", false);
  }
  if (c.op == "Conv2D") {
    attrs.Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
    attrs.Set("groups", int64_t{1});
    attrs.Set("offset_x", int64_t{0});
  }
  if (c.op == "MatMulV2") {
    attrs.Set("transpose_x1", false);
    attrs.Set("transpose_x2", false);
    attrs.Set("offset_x", int64_t{0});
  }
  if (c.op == "BatchMatMulV2") {
    attrs.Set("adj_x1", false);
    attrs.Set("adj_x2", false);
    attrs.Set("offset_x", int64_t{0});
  }
  attrs.Set("_op_impl_mode", std::string(mode));
  node->output(0)->set_dtype(dtype);
  node->output(0)->set_shape(c.output);
  return node;
}

}  // namespace ge::test
