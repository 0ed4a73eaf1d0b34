// ge's own window schemas refuse attribute values that a tampered .gem (or a
// graph built by hand) can hold, whatever the ONNX importer checked: a pooling
// attribute of INT32_MAX used to make `ge run` loop for ever.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>

#include "graph/shape_inference_utils.h"
#include "op_tester.h"

namespace ge::test {
namespace {

using Ints = std::vector<int64_t>;
using Catch::Matchers::Contains;

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

}  // namespace

TEST_CASE("Pooling attributes beyond int32 are refused naming the attribute and the range") {
  OpTester t;
  CHECK_THAT(t.Error("MaxPoolV3", {t.Input({1, 1, 8, 8})},
                     {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, kInt64Max, 1}}}),
             Contains("'strides'") && Contains("[1, 2147483647]"));
  CHECK_THAT(t.Error("AvgPoolV2", {t.Input({1, 1, 8, 8})},
                     {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, -1, 0}}}),
             Contains("'pads'") && Contains("[0, 2147483647]"));
}

TEST_CASE("A pooling window larger than the padded input is an error") {
  OpTester t;
  CHECK_THAT(t.Error("MaxPoolV3", {t.Input({1, 1, 8, 8})},
                     {{"ksize", Ints{1, 1, kInt32Max, 2}}, {"strides", Ints{1, 1, 1, 1}}}),
             Contains("does not fit in input length 8"));
}

TEST_CASE("Pooling pads as wide as the window are refused: windows of padding only") {
  OpTester t;
  // ksize 2: pads up to 1 leave every window a real element (PyTorch's rule is stricter: pad <= k / 2).
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 1, 4, 4})},
                {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{1, 1, 1, 1}}}) ==
        Shape{1, 1, 5, 5});
  CHECK_THAT(t.Error("MaxPoolV3", {t.Input({1, 1, 4, 4})},
                     {{"ksize", Ints{1, 1, 2, 2}}, {"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, kInt32Max}}}),
             Contains("width axis") && Contains("less than the window extent 2") && Contains("[0, 1]"));
  // Dilation widens the extent: ksize 2, dilation 3 spans 4 elements.
  CHECK(t.Infer("MaxPoolV3", {t.Input({1, 1, 6, 6})},
                {{"ksize", Ints{1, 1, 2, 2}},
                 {"strides", Ints{1, 1, 1, 1}},
                 {"dilations", Ints{1, 1, 3, 3}},
                 {"pads", Ints{3, 3, 0, 0}}}) == Shape{1, 1, 9, 3});
}

TEST_CASE("Conv attributes beyond int32 are refused") {
  OpTester t;
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 1, 8, 8}), t.Input({1, 1, 3, 3})},
                     {{"strides", Ints{1, 1, 1, 1}}, {"pads", Ints{0, 0, 0, 0}}, {"dilations", Ints{1, 1, kInt64Max, 1}}}),
             Contains("'dilations'") && Contains("[1, 2147483647]"));
}

TEST_CASE("Window arithmetic that would overflow int64 is an error, not a wrapped fit") {
  CHECK_THROWS_WITH(ConvOutputDim(kInt64Max - 1, 3, 1, 2, 2, 1), Contains("overflows int64"));
  CHECK_THROWS_WITH(PoolOutputDim(4, 3, 1, 0, 0, kInt64Max, false), Contains("overflows int64"));
  CHECK_THROWS_WITH(ConvTransposeOutputDim(kInt64Max / 2, 3, 4, 0, 0, 1, 0), Contains("overflows int64"));
  CHECK(PoolOutputDim(5, 2, 2, 0, 0, 1, true) == 3);  // the ceil rounding is unchanged
  CHECK(PoolOutputDim(6, 2, 2, 0, 0, 1, true) == 3);
}

}  // namespace ge::test
