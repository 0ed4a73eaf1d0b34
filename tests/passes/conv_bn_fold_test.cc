#include <catch2/catch.hpp>

#include <cmath>

#include "passes/builtin_passes.h"
#include "test_support.h"

namespace ge {
namespace {

constexpr int64_t kBatch = 1, kInChannels = 4, kOutChannels = 6, kGroups = 2, kSize = 6, kKernel = 3;
constexpr int64_t kStride = 2, kPad = 1;
constexpr int64_t kOutSize = (kSize + 2 * kPad - kKernel) / kStride + 1;
constexpr float kEpsilon = 1e-3f;

// Naive grouped NCHW convolution in double, square stride/padding, no dilation.
std::vector<double> ReferenceConv(const Tensor& x, const Tensor& w, const std::vector<double>& bias) {
  std::vector<double> y(kBatch * kOutChannels * kOutSize * kOutSize);
  const int64_t in_per_group = kInChannels / kGroups, out_per_group = kOutChannels / kGroups;
  for (int64_t n = 0; n < kBatch; ++n)
    for (int64_t co = 0; co < kOutChannels; ++co)
      for (int64_t oh = 0; oh < kOutSize; ++oh)
        for (int64_t ow = 0; ow < kOutSize; ++ow) {
          double sum = bias[co];
          for (int64_t ci = 0; ci < in_per_group; ++ci)
            for (int64_t kh = 0; kh < kKernel; ++kh)
              for (int64_t kw = 0; kw < kKernel; ++kw) {
                int64_t ih = oh * kStride - kPad + kh, iw = ow * kStride - kPad + kw;
                if (ih < 0 || ih >= kSize || iw < 0 || iw >= kSize) continue;
                int64_t channel = (co / out_per_group) * in_per_group + ci;
                double input = x.data_as<float>()[((n * kInChannels + channel) * kSize + ih) * kSize + iw];
                sum += input * w.data_as<float>()[((co * in_per_group + ci) * kKernel + kh) * kKernel + kw];
              }
          y[((n * kOutChannels + co) * kOutSize + oh) * kOutSize + ow] = sum;
        }
  return y;
}

std::vector<double> AsDoubles(const Tensor* tensor, int64_t count) {
  std::vector<double> values(count, 0.0);
  if (tensor != nullptr) values.assign(tensor->data_as<float>(), tensor->data_as<float>() + count);
  return values;
}

struct ConvBnGraph {
  Graph graph;
  Node* conv;
  Node* bn;
};

// x -> Conv2D(filter, bias?) -> BatchNorm(scale, offset, mean, variance) -> output "bn".
ConvBnGraph MakeConvBn(bool with_bias, bool constant_scale) {
  ConvBnGraph g;
  Graph& graph = g.graph;
  Value* x = graph.AddInput("x", DataType::kFloat, Shape{kBatch, kInChannels, kSize, kSize});
  std::vector<Value*> conv_inputs = {
      x, graph.AddConstant("filter", test::RandomFloats(Shape{kOutChannels, kInChannels / kGroups, kKernel, kKernel}, 1, -1, 1))};
  if (with_bias) conv_inputs.push_back(graph.AddConstant("bias", test::RandomFloats(Shape{kOutChannels}, 2, -1, 1)));
  g.conv = graph.AddNode("Conv2D", "conv", conv_inputs);
  g.conv->attrs().Set("strides", std::vector<int64_t>{1, 1, kStride, kStride});
  g.conv->attrs().Set("pads", std::vector<int64_t>{kPad, kPad, kPad, kPad});
  g.conv->attrs().Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
  g.conv->attrs().Set("groups", kGroups);
  g.conv->attrs().Set("data_format", std::string("NCHW"));
  Shape out_shape{kBatch, kOutChannels, kOutSize, kOutSize};
  g.conv->output(0)->set_dtype(DataType::kFloat);
  g.conv->output(0)->set_shape(out_shape);

  Value* scale = constant_scale ? graph.AddConstant("scale", test::RandomFloats(Shape{kOutChannels}, 3, 0.5f, 2))
                                : graph.AddInput("scale", DataType::kFloat, Shape{kOutChannels});
  g.bn = graph.AddNode("BatchNorm", "bn",
                       {g.conv->output(0), scale, graph.AddConstant("offset", test::RandomFloats(Shape{kOutChannels}, 4, -1, 1)),
                        graph.AddConstant("mean", test::RandomFloats(Shape{kOutChannels}, 5, -1, 1)),
                        graph.AddConstant("variance", test::RandomFloats(Shape{kOutChannels}, 6, 0.1f, 2))});
  g.bn->attrs().Set("epsilon", kEpsilon);
  g.bn->attrs().Set("data_format", std::string("NCHW"));
  g.bn->attrs().Set("is_training", false);
  g.bn->output(0)->set_dtype(DataType::kFloat);
  g.bn->output(0)->set_shape(out_shape);
  graph.SetOutputs({g.bn->output(0)});
  return g;
}

// What the unfolded graph computes, by the documented BatchNorm formula.
std::vector<double> ReferenceConvBn(const ConvBnGraph& g, const Tensor& x) {
  const Node& bn = *g.bn;
  std::vector<double> bias = AsDoubles(g.conv->input(2) ? g.conv->input(2)->constant() : nullptr, kOutChannels);
  std::vector<double> y = ReferenceConv(x, *g.conv->input(1)->constant(), bias);
  std::vector<double> scale = AsDoubles(bn.input(1)->constant(), kOutChannels);
  std::vector<double> offset = AsDoubles(bn.input(2)->constant(), kOutChannels);
  std::vector<double> mean = AsDoubles(bn.input(3)->constant(), kOutChannels);
  std::vector<double> variance = AsDoubles(bn.input(4)->constant(), kOutChannels);
  const int64_t plane = kOutSize * kOutSize;
  for (size_t i = 0; i < y.size(); ++i) {
    int64_t c = (static_cast<int64_t>(i) / plane) % kOutChannels;
    y[i] = (y[i] - mean[c]) / std::sqrt(variance[c] + kEpsilon) * scale[c] + offset[c];
  }
  return y;
}

Node* OnlyNodeOfType(const Graph& graph, const std::string& op_type) {
  Node* found = nullptr;
  for (Node* node : graph.nodes()) {
    if (node->op_type() != op_type) continue;
    REQUIRE(found == nullptr);
    found = node;
  }
  return found;
}

bool RunConvBnFold(Graph& graph) {
  PassContext ctx;
  return passes::MakeConvBnFoldPass()->Run(graph, ctx);
}

}  // namespace

TEST_CASE("conv_bn_fold folds BatchNorm into the Conv2D, matching the unfolded math") {
  bool with_bias = GENERATE(true, false);
  CAPTURE(with_bias);
  ConvBnGraph g = MakeConvBn(with_bias, /*constant_scale=*/true);
  Tensor x = test::RandomFloats(Shape{kBatch, kInChannels, kSize, kSize}, 7, -2, 2);
  std::vector<double> expected = ReferenceConvBn(g, x);
  Value* input = g.graph.inputs()[0];

  REQUIRE(RunConvBnFold(g.graph));
  CHECK(OnlyNodeOfType(g.graph, "BatchNorm") == nullptr);
  Node* folded = OnlyNodeOfType(g.graph, "Conv2D");
  REQUIRE(folded != nullptr);
  CHECK(folded->input(0) == input);
  CHECK(folded->attrs().GetInt("groups") == kGroups);
  CHECK(folded->attrs().GetInts("strides") == std::vector<int64_t>{1, 1, kStride, kStride});
  REQUIRE(g.graph.outputs().size() == 1);
  CHECK(g.graph.outputs()[0] == folded->output(0));
  CHECK(g.graph.outputs()[0]->name() == "bn");
  CHECK(folded->output(0)->shape() == Shape{kBatch, kOutChannels, kOutSize, kOutSize});

  const Tensor* filter = folded->input(1)->constant();
  const Tensor* bias = folded->input(2) ? folded->input(2)->constant() : nullptr;
  REQUIRE(filter != nullptr);
  REQUIRE(bias != nullptr);
  CHECK(filter->dtype() == DataType::kFloat);
  std::vector<double> actual = ReferenceConv(x, *filter, AsDoubles(bias, kOutChannels));
  double worst = 0;
  for (size_t i = 0; i < actual.size(); ++i) worst = std::max(worst, std::fabs(actual[i] - expected[i]));
  CHECK(worst < 1e-5);
}

TEST_CASE("conv_bn_fold leaves a Conv2D whose output has other uses") {
  ConvBnGraph g = MakeConvBn(true, true);
  Node* relu = g.graph.AddNode("Relu", "relu", {g.conv->output(0)});
  g.graph.SetOutputs({g.bn->output(0), relu->output(0)});
  CHECK_FALSE(RunConvBnFold(g.graph));
  CHECK(OnlyNodeOfType(g.graph, "BatchNorm") != nullptr);
}

TEST_CASE("conv_bn_fold needs constant BatchNorm parameters") {
  ConvBnGraph g = MakeConvBn(true, /*constant_scale=*/false);
  CHECK_FALSE(RunConvBnFold(g.graph));
  CHECK(OnlyNodeOfType(g.graph, "BatchNorm") != nullptr);
}

TEST_CASE("conv_bn_fold leaves a training-mode BatchNorm") {
  ConvBnGraph g = MakeConvBn(true, true);
  g.bn->attrs().Set("is_training", true);
  CHECK_FALSE(RunConvBnFold(g.graph));
}

}  // namespace ge
