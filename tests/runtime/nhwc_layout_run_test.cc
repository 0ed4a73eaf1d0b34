// Models compiled with the nhwc_layout pass compute what they compute
// without it, with transposes only at the edges of the NHWC region.
#include <catch2/catch.hpp>

#include <bit>
#include <random>
#include <string>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "test_models.h"
#include "test_support.h"

using ge::DataType;
using ge::Tensor;
using ge::test::MaxAbsDiff;
using ge::test::RandomTensor;

namespace {

// conv-relu-conv-add-maxpool-global average pool, with a depthwise
// convolution, a Relu6 clip and a channel concat on the way (the shapes of
// ResNet, MobileNetV2 and SqueezeNet blocks).
std::unique_ptr<ge::Graph> BuildCnn() {
  ge::GraphBuilder b("cnn");
  uint32_t seed = 100;
  const auto constant = [&](const std::string& name, ge::Shape shape) {
    return b.Constant(name, RandomTensor(std::move(shape), seed++));
  };
  ge::Value* x = b.Input("x", DataType::kFloat, {2, 8, 20, 20});
  ge::Value* c1 = b.Relu(b.Conv2D(x, constant("w1", {16, 8, 3, 3}), constant("b1", {16}), {{2, 2}, {1, 1, 1, 1}}));
  ge::Value* c2 = b.Conv2D(c1, constant("w2", {16, 16, 3, 3}), nullptr, {{1, 1}, {1, 1, 1, 1}});
  ge::Value* sum = b.Relu(b.Add(c2, c1));
  ge::Value* dw =
      b.Conv2D(sum, constant("w3", {16, 1, 3, 3}), constant("b3", {16}), {{1, 1}, {1, 1, 1, 1}, {1, 1}, 16});
  ge::Value* clipped = b.Op("ClipByValue", {dw, b.Constant("lo", Tensor::FromVector<float>(DataType::kFloat, {}, {0})),
                                            b.Constant("hi", Tensor::FromVector<float>(DataType::kFloat, {}, {6}))})[0];
  ge::Value* squeeze = b.Relu(b.Conv2D(clipped, constant("w4", {8, 16, 1, 1})));
  ge::Value* expand = b.Concat({b.Conv2D(squeeze, constant("w5", {8, 8, 1, 1})),
                                b.Conv2D(squeeze, constant("w6", {8, 8, 3, 3}), nullptr, {{1, 1}, {1, 1, 1, 1}})},
                               1);
  ge::Value* pooled = b.MaxPool(expand, {{3, 3}, {2, 2}, {0, 0, 0, 0}, true});
  ge::Value* mean = b.Op("ReduceMeanD", {pooled}, {{"axes", std::vector<int64_t>{2, 3}}, {"keep_dims", true}})[0];
  b.Output(b.Flatten(mean));
  return b.Build();
}

size_t CountOps(const ge::Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const ge::Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

TEST_CASE("nhwc_layout: a small CNN gives the NCHW results with one transpose in and one out", "[nhwc_layout]") {
  auto nhwc = ge::CompiledModel::Compile(BuildCnn());
  auto nchw = ge::CompiledModel::Compile(BuildCnn(), {{"ge.disablePasses", "nhwc_layout"}});
  CHECK(CountOps(nhwc->graph(), "TransposeD") == 2);
  CHECK(CountOps(nchw->graph(), "TransposeD") == 0);
  for (const ge::Node* node : nhwc->graph().nodes()) {
    if (node->op_type() == "Conv2D" || node->op_type() == "MaxPoolV3") {
      CHECK(node->attrs().GetString("data_format") == "NHWC");
    }
  }
  REQUIRE(nhwc->outputs().size() == 1);
  for (uint32_t seed : {1u, 2u}) {
    const Tensor x = RandomTensor({2, 8, 20, 20}, seed);
    const std::vector<Tensor> expected = nchw->Run({x});
    const std::vector<Tensor> actual = nhwc->Run({x});
    REQUIRE(actual.size() == 1);
    CHECK(actual[0].shape() == expected[0].shape());
    CHECK(MaxAbsDiff(actual[0], expected[0]) < 1e-5);
  }
}

// x -> AscendQuant -> QuantConv2D (int8 out, relu) -> MaxPoolV3 on int8 ->
// QuantConv2D (float out) -> AscendAntiQuant-free float output: the int8 ops
// of a quantized CNN.
std::unique_ptr<ge::Graph> BuildInt8Cnn() {
  ge::GraphBuilder b("int8_cnn");
  uint32_t seed = 200;
  const auto filter = [&](ge::Shape shape) {
    Tensor w(DataType::kInt8, std::move(shape));
    std::mt19937 random(seed++);
    for (int64_t i = 0; i < w.num_elements(); ++i) w.data_as<int8_t>()[i] = static_cast<int8_t>(random() % 255 - 127);
    return b.Constant("w" + std::to_string(seed), w);
  };
  const auto scale_words = [&](float scale, int64_t channels) {
    const uint64_t word = std::bit_cast<uint32_t>(scale);
    return b.Constant("s" + std::to_string(seed++),
                      Tensor::FromVector<uint64_t>(DataType::kUInt64, {channels}, std::vector<uint64_t>(channels, word)));
  };
  const std::vector<int64_t> same = {1, 1, 1, 1};
  ge::Value* x = b.Input("x", DataType::kFloat, {1, 8, 12, 12});
  ge::Value* q = b.Op("AscendQuant", {x}, {{"scale", 32.0f}, {"offset", 3.0f}})[0];
  ge::Value* c1 = b.Op("QuantConv2D", {q, filter({16, 8, 3, 3}), scale_words(1.0f / 512, 16)},
                       {{"strides", same}, {"pads", same}, {"offset_x", int64_t{3}}, {"relu_flag", true},
                        {"dtype", static_cast<int64_t>(DataType::kInt8)}})[0];
  ge::Value* pooled = b.Op("MaxPoolV3", {c1},
                           {{"ksize", std::vector<int64_t>{1, 1, 3, 3}},
                            {"strides", std::vector<int64_t>{1, 1, 2, 2}},
                            {"pads", std::vector<int64_t>{1, 1, 1, 1}}})[0];
  ge::Value* c2 = b.Op("QuantConv2D", {pooled, filter({4, 16, 3, 3}), scale_words(1.0f / 1024, 4)},
                       {{"strides", same}, {"pads", same}, {"dtype", static_cast<int64_t>(DataType::kFloat)}})[0];
  b.Output(c2);
  return b.Build();
}

TEST_CASE("nhwc_layout: the int8 ops of a quantized CNN give the NCHW results bit for bit", "[nhwc_layout]") {
  auto nhwc = ge::CompiledModel::Compile(BuildInt8Cnn());
  auto nchw = ge::CompiledModel::Compile(BuildInt8Cnn(), {{"ge.disablePasses", "nhwc_layout"}});
  CHECK(CountOps(nhwc->graph(), "TransposeD") == 2);
  for (const ge::Node* node : nhwc->graph().nodes()) {
    if (node->op_type() == "QuantConv2D" || node->op_type() == "MaxPoolV3") {
      CHECK(node->attrs().GetString("data_format") == "NHWC");
    }
  }
  for (uint32_t seed : {1u, 2u}) {
    const Tensor x = RandomTensor({1, 8, 12, 12}, seed);
    const Tensor expected = nchw->Run({x})[0];
    const Tensor actual = nhwc->Run({x})[0];
    REQUIRE(actual.shape() == expected.shape());
    CHECK(ge::test::BitIdentical(actual, expected));
    CHECK(MaxAbsDiff(expected, Tensor(DataType::kFloat, expected.shape())) > 0);  // not all zeros
  }
}

}  // namespace
