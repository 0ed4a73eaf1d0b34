// Shape inference of the 2-D convolution and pooling ops with data_format
// NHWC: x and y are [N, H, W, C], the window attributes in NHWC order, the
// filter [Cout, Cin/groups, kh, kw] as for NCHW.
#include <catch2/catch.hpp>

#include "op_tester.h"

using ge::Shape;
using Ints = std::vector<int64_t>;

TEST_CASE("Conv2D, MaxPoolV3 and AvgPoolV2 infer NHWC shapes") {
  ge::test::OpTester t;
  const std::string nhwc = "NHWC";
  // MobileNetV2 stem: (224 + 1 + 1 - 3) / 2 + 1 = 112.
  CHECK(t.Infer("Conv2D", {t.Input({1, 224, 224, 3}), t.Input({32, 3, 3, 3})},
                {{"strides", Ints{1, 2, 2, 1}}, {"pads", Ints{1, 1, 1, 1}}, {"data_format", nhwc}}) ==
        Shape{1, 112, 112, 32});
  // Depthwise, dilated, asymmetric: H (10 + 1 + 0 - 5) / 1 + 1 = 7, W (12 + 0 + 2 - 5) / 3 + 1 = 4.
  CHECK(t.Infer("Conv2D", {t.Input({2, 10, 12, 8}), t.Input({8, 1, 3, 3}), t.Input({8})},
                {{"strides", Ints{1, 1, 3, 1}}, {"pads", Ints{1, 0, 0, 2}}, {"dilations", Ints{1, 2, 2, 1}},
                 {"groups", int64_t{8}}, {"data_format", nhwc}}) == Shape{2, 7, 4, 8});
  // SqueezeNet's pool with ceil_mode: ceil((111 - 3) / 2) + 1 = 55.
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 111, 111, 64})},
                {{"ksize", Ints{1, 3, 3, 1}}, {"strides", Ints{1, 2, 2, 1}}, {"ceil_mode", true},
                 {"data_format", nhwc}}) == Shape{1, 55, 55, 64});
  CHECK(t.Infer("AvgPoolV2", {t.Input({3, 7, 5, 16})},
                {{"ksize", Ints{1, 1, 1, 1}}, {"strides", Ints{1, 1, 1, 1}}, {"global_pooling", true},
                 {"data_format", nhwc}}) == Shape{3, 1, 1, 16});
}

TEST_CASE("NHWC window attributes and the ops without an NHWC form are checked") {
  ge::test::OpTester t;
  const std::string nhwc = "NHWC";
  // C of an NHWC window attribute is its last entry.
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 8, 8, 3}), t.Input({16, 3, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 2}}, {"pads", Ints{0, 0, 0, 0}}, {"data_format", nhwc}}),
             Catch::Contains("strides") && Catch::Contains("NHWC"));
  // Cin is x's last dim.
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 3, 8, 8}), t.Input({16, 3, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"data_format", nhwc}}),
             Catch::Contains("input channels"));
  CHECK_THAT(t.Error("Conv2DTranspose", {t.Input({4}), t.Input({1, 8, 8, 3}), t.Input({3, 4, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"data_format", nhwc}}),
             Catch::Contains("data_format"));
  CHECK_THAT(t.Error("MaxPoolWithArgmax", {t.Input({1, 8, 8, 3})},
                     {{"ksize", Ints{1, 2, 2, 1}}, {"strides", Ints{1, 2, 2, 1}}, {"data_format", nhwc}}),
             Catch::Contains("data_format"));
}
