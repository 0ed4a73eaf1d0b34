// MaxPoolV3 on int8/int16 and the int8 AvgPoolV2 (zero point offset_x,
// rounding half to even) against reference loops.
#include <catch2/catch.hpp>

#include <cmath>

#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

const QuantAttrs kWindow3x3 = {{"ksize", std::vector<int64_t>{1, 1, 3, 3}},
                               {"strides", std::vector<int64_t>{1, 1, 2, 2}},
                               {"pads", std::vector<int64_t>{1, 1, 1, 1}}};

// Per output cell of a 3x3 stride-2 pad-1 window over [1, C, 5, 5]: calls visit(out, values inside x, padded count).
template <typename Visit>
void ForEachWindow(const Tensor& x, Visit&& visit) {
  const auto xv = ToDoubles(x);
  const int64_t channels = x.shape().dim(1);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t oh = 0; oh < 3; ++oh) {
      for (int64_t ow = 0; ow < 3; ++ow) {
        std::vector<double> inside;
        int64_t padded = 0;
        for (int64_t kh = 0; kh < 3; ++kh) {
          for (int64_t kw = 0; kw < 3; ++kw) {
            const int64_t h = oh * 2 - 1 + kh, w = ow * 2 - 1 + kw;
            if (h >= 0 && h < 5 && w >= 0 && w < 5) {
              inside.push_back(xv[(c * 5 + h) * 5 + w]);
            } else {
              ++padded;
            }
          }
        }
        visit(inside, padded);
      }
    }
  }
}

}  // namespace

TEST_CASE("MaxPoolV3 on int8 and int16 keeps the dtype and padding never wins", "[device][quantized_pool]") {
  std::mt19937 rng(31);
  for (DataType dtype : {DataType::kInt8, DataType::kInt16}) {
    // All negative, so a padded zero would win if padding took part.
    Tensor x = dtype == DataType::kInt8 ? RandomInts<int8_t>(dtype, Shape{1, 3, 5, 5}, rng, -128, -1)
                                        : RandomInts<int16_t>(dtype, Shape{1, 3, 5, 5}, rng, -32768, -1);
    std::vector<double> expected;
    ForEachWindow(x, [&](const std::vector<double>& inside, int64_t) {
      expected.push_back(*std::max_element(inside.begin(), inside.end()));
    });
    Graph g;
    Node* node = AddQuantOp(g, "MaxPoolV3", {g.AddInput("x", dtype, {1, 3, 5, 5})}, dtype, {1, 3, 3, 3}, kWindow3x3);
    INFO(DataTypeName(dtype));
    CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
  }
}

TEST_CASE("int8 AvgPoolV2 rounds half to even and counted padding holds offset_x", "[device][quantized_pool]") {
  SECTION("hand-computed halves: means 2.5 -> 2, 3.5 -> 4, -2.5 -> -2") {
    Tensor x = Tensor::FromVector<int8_t>(DataType::kInt8, Shape{1, 3, 1, 2}, {2, 3, 3, 4, -2, -3});
    Graph g;
    Node* node =
        AddQuantOp(g, "AvgPoolV2", {g.AddInput("x", DataType::kInt8, {1, 3, 1, 2})}, DataType::kInt8, {1, 3, 1, 1},
                   {{"ksize", std::vector<int64_t>{1, 1, 1, 2}}, {"strides", std::vector<int64_t>{1, 1, 1, 2}}});
    CheckClose(RunCpuKernel(*node, {x})[0], {2, 4, -2}, 0, 0);
  }
  SECTION("random data, exclusive and inclusive padding with offset_x -7") {
    std::mt19937 rng(32);
    Tensor x = RandomInts<int8_t>(DataType::kInt8, Shape{1, 4, 5, 5}, rng, -128, 127);
    for (bool exclusive : {true, false}) {
      std::vector<double> expected;
      ForEachWindow(x, [&](const std::vector<double>& inside, int64_t padded) {
        double sum = 0;
        for (double v : inside) sum += v;
        if (!exclusive) sum += -7.0 * static_cast<double>(padded);
        const double count = static_cast<double>(inside.size() + (exclusive ? 0 : padded));
        expected.push_back(std::nearbyint(sum / count));
      });
      QuantAttrs attrs = kWindow3x3;
      attrs.emplace_back("exclusive", exclusive);
      attrs.emplace_back("offset_x", int64_t{-7});
      Graph g;
      Node* node = AddQuantOp(g, "AvgPoolV2", {g.AddInput("x", DataType::kInt8, {1, 4, 5, 5})}, DataType::kInt8,
                              {1, 4, 3, 3}, attrs);
      INFO("exclusive " << exclusive);
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 0, 0);
    }
  }
}
