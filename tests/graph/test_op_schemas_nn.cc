// Shape inference of the NN ops (convolution, pooling, normalization) against
// hand-computed shapes.
#include <catch2/catch.hpp>

#include "op_tester.h"

using ge::DataType;
using ge::Shape;
using Ints = std::vector<int64_t>;
constexpr int64_t kU = Shape::kUnknownDim;

TEST_CASE("Conv2D output shape with strides, pads, dilations and groups") {
  ge::test::OpTester t;
  // ResNet stem: (224 + 3 + 3 - 7) / 2 + 1 = 112.
  CHECK(t.Infer("Conv2D", {t.Input({1, 3, 224, 224}), t.Input({64, 3, 7, 7})},
                {{"strides", Ints{1, 1, 2, 2}}, {"pads", Ints{3, 3, 3, 3}}}) == Shape{1, 64, 112, 112});
  // Dilation 2 makes a 3x3 kernel span 5: 10 - 5 + 1 = 6.
  CHECK(t.Infer("Conv2D", {t.Input({1, 4, 10, 10}), t.Input({8, 4, 3, 3})},
                {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"dilations", Ints{1, 1, 2, 2}}}) ==
        Shape{1, 8, 6, 6});
  // Groups: filter channels 2 x groups 4 = 8 input channels.
  CHECK(t.Infer("Conv2D", {t.Input({2, 8, 9, 9}), t.Input({8, 2, 3, 3}), t.Input({8})},
                {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"groups", int64_t{4}}}) ==
        Shape{2, 8, 7, 7});
  // Asymmetric pads [top, bottom, left, right] and strides: H (9+1+0-3)/1+1 = 8, W (9+2+1-3)/2+1 = 5.
  CHECK(t.Infer("Conv2D", {t.Input({1, 1, 9, 9}), t.Input({1, 1, 3, 3})},
                {{"strides", Ints{1, 1, 1, 2}}, {"pads", Ints{1, 0, 2, 1}}}) == Shape{1, 1, 8, 5});
}

TEST_CASE("Conv2D infers what it can from unknown shapes") {
  ge::test::OpTester t;
  const std::map<std::string, ge::AttrValue> attrs = {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{1, 1, 1, 1}}};
  CHECK(t.Infer("Conv2D", {t.Input({kU, 3, 32, kU}), t.Input({16, 3, 3, 3})}, attrs) == Shape{kU, 16, 32, kU});
  CHECK(t.Infer("Conv2D", {t.Input(Shape::UnknownRank()), t.Input({16, 3, 3, 3})}, attrs) == Shape{kU, 16, kU, kU});
  CHECK(t.Infer("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 3, kU, 3})}, attrs) == Shape{1, 16, kU, kU});
}

TEST_CASE("Conv2D reports contradictions naming node, op and shapes") {
  ge::test::OpTester t;
  const std::map<std::string, ge::AttrValue> attrs = {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}};
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 4, 3, 3})}, attrs),
             Catch::Contains("[1,3,8,8]") && Catch::Contains("[16,4,3,3]"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 3, 3, 3}), t.Input({15})}, attrs),
             Catch::Contains("bias"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 2, 2}), t.Input({16, 3, 3, 3})}, attrs), Catch::Contains("height"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 3, 3, 3})},
                     {{"strides", Ints{1, 1}}, {"pads", Ints{0, 0, 0, 0}}}),
             Catch::Contains("strides"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 3, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"data_format", std::string("HWCN")}}),
             Catch::Contains("HWCN") && Catch::Contains("NCHW") && Catch::Contains("NHWC"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 6, 8, 8}), t.Input({16, 3, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"groups", int64_t{4}}}),
             Catch::Contains("groups"));
}

TEST_CASE("Conv2DTranspose output shape from attributes and from input_size") {
  ge::test::OpTester t;
  const std::map<std::string, ge::AttrValue> attrs = {
      {"strides", Ints{1, 1, 2, 2}}, {"pads", Ints{1, 1, 1, 1}}, {"output_padding", Ints{0, 0, 1, 1}}};
  // 2*(4-1) + 1 + (3-1) + 1 - 2 = 8; output channels = filter dim 1 x groups.
  CHECK(t.Infer("Conv2DTranspose", {t.Input({4}, DataType::kInt64), t.Input({1, 8, 4, 4}), t.Input({8, 3, 3, 3})},
                attrs) == Shape{1, 3, 8, 8});
  CHECK(t.Infer("Conv2DTranspose", {t.IntConstant({1, 3, 8, 8}), t.Input({kU, 8, 4, 4}), t.Input({8, 3, 3, 3})},
                attrs) == Shape{1, 3, 8, 8});
  CHECK_THAT(
      t.Error("Conv2DTranspose", {t.IntConstant({1, 3, 9, 9}), t.Input({1, 8, 4, 4}), t.Input({8, 3, 3, 3})}, attrs),
      Catch::Contains("input_size[2]"));
  CHECK_THAT(
      t.Error("Conv2DTranspose", {t.Input({4}, DataType::kInt64), t.Input({1, 4, 4, 4}), t.Input({8, 3, 3, 3})}, attrs),
      Catch::Contains("input channels"));
}

TEST_CASE("Pooling output shape with ceil_mode, pads and global pooling") {
  ge::test::OpTester t;
  // ResNet max pool: (112 + 2 - 3) / 2 + 1 = 56.
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 64, 112, 112})},
                {{"ksize", Ints{1, 1, 3, 3}}, {"strides", Ints{1, 1, 2, 2}}, {"pads", Ints{1, 1, 1, 1}}}) ==
        Shape{1, 64, 56, 56});
  // floor((5-2)/2)+1 = 2, ceil gives 3.
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 1, 5, 5})}, {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 2, 2}}}) ==
        Shape{1, 1, 2, 2});
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 1, 5, 5})},
                {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 2, 2}}, {"ceil_mode", true}}) ==
        Shape{1, 1, 3, 3});
  // The third window would start in the end padding: dropped even with ceil_mode.
  CHECK(t.Infer("AvgPoolV2", {t.Input({1, 1, 5, 5})},
                {{"ksize", Ints{1, 1, 2, 2}},
                 {"strides", Ints{1, 1, 3, 3}},
                 {"pads", Ints{1, 1, 1, 1}},
                 {"ceil_mode", true}}) == Shape{1, 1, 2, 2});
  CHECK(t.Infer("AvgPoolV2", {t.Input({2, 7, 13, 11})},
                {{"ksize", Ints{1, 1, 3, 3}}, {"strides", Ints{1, 1, 1, 1}}, {"global_pooling", true}}) ==
        Shape{2, 7, 1, 1});
  CHECK(t.Infer("MaxPoolV3", {t.Input({kU, 3, 8, kU})}, {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 2, 2}}}) ==
        Shape{kU, 3, 4, kU});
  CHECK_THAT(t.Error("MaxPoolV3", {t.Input({1, 1, 5, 5})}, {{"ksize", Ints{2, 2}}, {"strides", Ints{1, 1, 2, 2}}}),
             Catch::Contains("ksize"));
  CHECK_THAT(t.Error("MaxPoolV3", {t.Input({1, 5, 5})}, {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 2, 2}}}),
             Catch::Contains("rank 4"));
}

TEST_CASE("BatchNorm, LayerNorm and SoftmaxV2 shapes and checks") {
  ge::test::OpTester t;
  CHECK(t.Infer("BatchNorm", {t.Input({1, 3, 4, 4}), t.Input({3}), t.Input({3}), t.Input({3}), t.Input({3})}) ==
        Shape{1, 3, 4, 4});
  CHECK_THAT(t.Error("BatchNorm", {t.Input({1, 3, 4, 4}), t.Input({3}), t.Input({3}), t.Input({4}), t.Input({3})}),
             Catch::Contains("mean"));
  CHECK_THAT(t.Error("BatchNorm", {t.Input({1, 3, 4, 4}), t.Input({3}), t.Input({3}), t.Input({3}), t.Input({3})},
                     {{"is_training", true}}),
             Catch::Contains("is_training"));

  ge::Node* ln = t.Run("LayerNorm", {t.Input({2, 5, 8}), t.Input({8}), t.Input({8})},
                       {{"begin_norm_axis", int64_t{-1}}, {"begin_params_axis", int64_t{-1}}}, 3);
  CHECK(ln->output(0)->shape() == Shape{2, 5, 8});
  CHECK(ln->output(1)->shape() == Shape{2, 5, 1});
  CHECK(ln->output(2)->shape() == Shape{2, 5, 1});
  CHECK(ln->output(1)->dtype() == DataType::kFloat);
  CHECK(t.Infer("LayerNorm", {t.Input({2, 5, 8}), t.Input({5, 8}), t.Input({8})},
                {{"begin_norm_axis", int64_t{1}}, {"begin_params_axis", int64_t{1}}}) == Shape{2, 5, 8});
  CHECK_THAT(t.Error("LayerNorm", {t.Input({2, 5, 8}), t.Input({7}), t.Input({8})},
                     {{"begin_norm_axis", int64_t{-1}}, {"begin_params_axis", int64_t{-1}}}),
             Catch::Contains("gamma [7]"));
  CHECK_THAT(t.Error("LayerNorm", {t.Input({2, 5, 8}), t.Input({8}), t.Input({8})}, {{"begin_norm_axis", int64_t{3}}}),
             Catch::Contains("begin_norm_axis"));

  CHECK(t.Infer("SoftmaxV2", {t.Input({2, 10})}) == Shape{2, 10});
  CHECK_THAT(t.Error("SoftmaxV2", {t.Input({2, 10})}, {{"axes", Ints{2}}}), Catch::Contains("axes"));
}

TEST_CASE("NLLLoss: target's shape for reduction none, else a scalar, mismatches fail") {
  ge::test::OpTester t;
  const DataType i64 = DataType::kInt64;
  CHECK(t.Infer("NLLLoss", {t.Input({3, 5, 2, 4}), t.Input({3, 2, 4}, i64)}, {{"reduction", std::string("none")}}) ==
        Shape{3, 2, 4});
  CHECK(t.Infer("NLLLoss", {t.Input({3, 5, 2, -1}), t.Input({3, -1, 4}, i64)}, {{"reduction", std::string("none")}}) ==
        Shape{3, 2, 4});
  CHECK(t.Infer("NLLLoss", {t.Input({3, 5}), t.Input({3}, i64), t.Input({5})}) == Shape{});
  CHECK(t.Infer("NLLLoss", {t.Input({3, 5, 2}), t.Input({3, 2}, i64)}, {{"reduction", std::string("sum")}}) ==
        Shape{});
  CHECK_THAT(t.Error("NLLLoss", {t.Input({3, 5}), t.Input({3}, i64)}, {{"reduction", std::string("avg")}}),
             Catch::Contains("reduction") && Catch::Contains("none, sum, mean"));
  CHECK_THAT(t.Error("NLLLoss", {t.Input({3, 5, 2}), t.Input({3, 3}, i64)}), Catch::Contains("target"));
  CHECK_THAT(t.Error("NLLLoss", {t.Input({3, 5, 2}), t.Input({3}, i64)}), Catch::Contains("target"));
  CHECK_THAT(t.Error("NLLLoss", {t.Input({3, 5}), t.Input({3}, i64), t.Input({4})}), Catch::Contains("weight"));
}
