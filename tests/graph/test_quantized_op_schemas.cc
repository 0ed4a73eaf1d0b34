// Inference of the quantized deploy ops (AscendQuant, AscendDequant,
// AscendRequant, AscendAntiQuant, WeightQuantBatchMatmulV2, FFN) and of the
// quantized forms of Conv2D, MatMulV2, BatchMatMulV2 and AvgPoolV2.
#include <catch2/catch.hpp>

#include "op_tester.h"

using namespace ge;
using namespace ge::test;

namespace {

DataType OutDtype(Node* node) { return node->output(0)->dtype(); }

const std::map<std::string, AttrValue> kConvAttrs = {{"strides", std::vector<int64_t>{1, 1, 1, 1}},
                                                     {"pads", std::vector<int64_t>{1, 1, 1, 1}}};

}  // namespace

TEST_CASE("AscendQuant gives dst_type's dtype and refuses other round modes and dst types") {
  OpTester t;
  Node* int8 = t.Run("AscendQuant", {t.Input({2, 3})}, {{"scale", 0.5f}});
  CHECK(OutDtype(int8) == DataType::kInt8);
  CHECK(int8->output(0)->shape() == Shape({2, 3}));
  CHECK(OutDtype(t.Run("AscendQuant", {t.Input({4}, DataType::kFloat16)},
                       {{"scale", 0.5f}, {"dst_type", int64_t{6}}})) == DataType::kInt16);
  CHECK_THAT(t.Error("AscendQuant", {t.Input({2})}, {{"scale", 1.0f}, {"dst_type", int64_t{3}}}),
             Catch::Contains("dst_type") && Catch::Contains("2 (int8), 6 (int16)"));
  CHECK_THAT(t.Error("AscendQuant", {t.Input({2})}, {{"scale", 1.0f}, {"round_mode", std::string("Ceil")}}),
             Catch::Contains("round_mode") && Catch::Contains("Round"));
  CHECK_THAT(t.Error("AscendQuant", {t.Input({2})}), Catch::Contains("scale"));
}

TEST_CASE("AscendDequant and AscendRequant check deq_scale against channel_axis") {
  OpTester t;
  Node* per_channel =
      t.Run("AscendDequant", {t.Input({2, 8, 4, 4}, DataType::kInt32), t.Input({8}, DataType::kUInt64)});
  CHECK(OutDtype(per_channel) == DataType::kFloat);
  CHECK(OutDtype(t.Run("AscendDequant", {t.Input({2, 8}, DataType::kInt32), t.Input({1}, DataType::kUInt64)},
                       {{"dtype", int64_t{1}}})) == DataType::kFloat16);
  CHECK(OutDtype(t.Run("AscendRequant", {t.Input({2, 5, 8}, DataType::kInt32), t.Input({8}, DataType::kUInt64)},
                       {{"channel_axis", int64_t{-1}}})) == DataType::kInt8);
  CHECK_THAT(t.Error("AscendDequant", {t.Input({2, 8, 4, 4}, DataType::kInt32), t.Input({4}, DataType::kUInt64)}),
             Catch::Contains("deq_scale") && Catch::Contains("1 or C = 8"));
  CHECK_THAT(t.Error("AscendDequant", {t.Input({2, 8}, DataType::kInt32), t.Input({1}, DataType::kUInt64)},
                     {{"dtype", int64_t{2}}}),
             Catch::Contains("dtype") && Catch::Contains("0 (float32), 1 (float16)"));
  CHECK_THAT(t.Error("AscendRequant", {t.Input({2, 8}, DataType::kInt32), t.Input({3}, DataType::kUInt64)}),
             Catch::Contains("req_scale"));
}

TEST_CASE("AscendAntiQuant gives the float dtype attribute") {
  OpTester t;
  CHECK(OutDtype(t.Run("AscendAntiQuant", {t.Input({3}, DataType::kInt8)}, {{"scale", 2.0f}})) == DataType::kFloat);
  CHECK(OutDtype(t.Run("AscendAntiQuant", {t.Input({3}, DataType::kInt16)},
                       {{"scale", 2.0f}, {"dtype", int64_t{1}}})) == DataType::kFloat16);
}

TEST_CASE("WeightQuantBatchMatmulV2 shapes and refusals") {
  OpTester t;
  CHECK(t.Infer("WeightQuantBatchMatmulV2", {t.Input({3, 5, 16}), t.Input({16, 24}, DataType::kInt8), t.Input({24})}) ==
        Shape({3, 5, 24}));
  CHECK(t.Infer("WeightQuantBatchMatmulV2",
                {t.Input({16, 5}), t.Input({24, 16}, DataType::kInt8), t.Input({1}), t.Input({1})},
                {{"transpose_x", true}, {"transpose_weight", true}}) == Shape({5, 24}));
  CHECK_THAT(t.Error("WeightQuantBatchMatmulV2", {t.Input({5, 16}), t.Input({15, 24}, DataType::kInt8), t.Input({24})}),
             Catch::Contains("K of x"));
  CHECK_THAT(t.Error("WeightQuantBatchMatmulV2", {t.Input({5, 16}), t.Input({16, 24}, DataType::kInt8), t.Input({7})}),
             Catch::Contains("antiquant_scale"));
  CHECK_THAT(t.Error("WeightQuantBatchMatmulV2",
                     {t.Input({5, 16}), t.Input({16, 24}, DataType::kInt8), t.Input({24}), nullptr, t.Input({1})}),
             Catch::Contains("quant_scale"));
  CHECK_THAT(t.Error("WeightQuantBatchMatmulV2", {t.Input({5, 16}), t.Input({16, 24}, DataType::kInt8), t.Input({24})},
                     {{"antiquant_group_size", int64_t{32}}}),
             Catch::Contains("antiquant_group_size"));
}

TEST_CASE("FFN shapes and expert counts and refusals") {
  OpTester t;
  CHECK(t.Infer("FFN", {t.Input({8, 16}), t.Input({2, 16, 32}, DataType::kInt8), t.Input({2, 32, 12}, DataType::kInt8),
                        t.IntConstant({3, 5}), nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, t.Input({2, 32}),
                        t.Input({2, 12})}) == Shape({8, 12}));
  CHECK(t.Infer("FFN", {t.Input({8, 16}), t.Input({16, 32}), t.Input({32, 12})},
                {{"activation", std::string("relu")}}) == Shape({8, 12}));
  CHECK_THAT(t.Error("FFN", {t.Input({8, 16}), t.Input({2, 16, 32}), t.Input({2, 32, 12}), t.IntConstant({3, 4})}),
             Catch::Contains("sum to 7") && Catch::Contains("M = 8"));
  CHECK_THAT(t.Error("FFN", {t.Input({8, 16}), t.Input({2, 16, 32}), t.Input({2, 32, 12})}),
             Catch::Contains("expert_tokens"));
  CHECK_THAT(
      t.Error("FFN", {t.Input({8, 16}), t.Input({16, 32}), t.Input({32, 12})}, {{"activation", std::string("tanh")}}),
      Catch::Contains("activation") && Catch::Contains("fastgelu, gelu, relu, silu"));
  CHECK_THAT(t.Error("FFN", {t.Input({8, 16}), t.Input({16, 32}, DataType::kInt8), t.Input({32, 12}, DataType::kInt8)}),
             Catch::Contains("antiquant_scale1"));
  try {
    t.Run("FFN", {t.Input({8, 16}), t.Input({16, 32}), t.Input({32, 12}), nullptr, nullptr, nullptr, t.Input({1})});
    FAIL("FFN with a scale input did not throw");
  } catch (const ge::Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK_THAT(std::string(e.what()), Catch::Contains("'scale'"));
  }
}

TEST_CASE("Conv2D and MatMulV2 quantized forms give int32 and name a wrong operand") {
  OpTester t;
  Node* conv = t.Run(
      "Conv2D",
      {t.Input({1, 8, 6, 6}, DataType::kInt8), t.Input({4, 8, 3, 3}, DataType::kInt8), t.Input({4}, DataType::kInt32)},
      kConvAttrs);
  CHECK(OutDtype(conv) == DataType::kInt32);
  CHECK(conv->output(0)->shape() == Shape({1, 4, 6, 6}));
  CHECK(OutDtype(t.Run("Conv2D", {t.Input({1, 8, 6, 6}, DataType::kInt16), t.Input({4, 8, 3, 3}, DataType::kInt8)},
                       kConvAttrs)) == DataType::kInt32);
  CHECK(OutDtype(t.Run("Conv2D", {t.Input({1, 8, 6, 6}), t.Input({4, 8, 3, 3})}, kConvAttrs)) == DataType::kFloat);
  CHECK_THAT(
      t.Error("Conv2D", {t.Input({1, 8, 6, 6}, DataType::kInt8), t.Input({4, 8, 3, 3}, DataType::kInt8), t.Input({4})},
              kConvAttrs),
      Catch::Contains("'bias'") && Catch::Contains("int32"));
  CHECK_THAT(
      t.Error("Conv2D", {t.Input({1, 8, 6, 6}, DataType::kInt8), t.Input({4, 8, 3, 3}, DataType::kInt16)}, kConvAttrs),
      Catch::Contains("'filter'") && Catch::Contains("int8"));
  CHECK_THAT(t.Error("Conv2D", {t.Input({1, 8, 6, 6}), t.Input({4, 8, 3, 3}, DataType::kInt8)}, kConvAttrs),
             Catch::Contains("'filter'") && Catch::Contains("float32"));

  CHECK(OutDtype(t.Run("MatMulV2", {t.Input({4, 8}, DataType::kInt8), t.Input({8, 3}, DataType::kInt8),
                                    t.Input({3}, DataType::kInt32)})) == DataType::kInt32);
  CHECK(OutDtype(t.Run("BatchMatMulV2", {t.Input({2, 4, 8}, DataType::kInt8), t.Input({8, 3}, DataType::kInt8)})) ==
        DataType::kInt32);
  CHECK(OutDtype(t.Run("MatMulV2", {t.Input({4, 8}, DataType::kInt32), t.Input({8, 3}, DataType::kInt32)})) ==
        DataType::kInt32);
  CHECK_THAT(t.Error("MatMulV2", {t.Input({4, 8}, DataType::kInt8), t.Input({8, 3})}),
             Catch::Contains("'x2'") && Catch::Contains("int8"));
}

TEST_CASE("AvgPoolV2 takes int8 with offset_x in its range only") {
  OpTester t;
  const std::map<std::string, AttrValue> window = {{"ksize", std::vector<int64_t>{1, 1, 2, 2}},
                                                   {"strides", std::vector<int64_t>{1, 1, 2, 2}},
                                                   {"offset_x", int64_t{-5}}};
  CHECK(OutDtype(t.Run("AvgPoolV2", {t.Input({1, 2, 4, 4}, DataType::kInt8)}, window)) == DataType::kInt8);
  CHECK_THAT(t.Error("AvgPoolV2", {t.Input({1, 2, 4, 4})}, window), Catch::Contains("offset_x"));
}
