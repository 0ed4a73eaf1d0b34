// ARQ against hand-computed factors (AMCT's min/max formulas) and the
// quantize/dequantize error bound.
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/arq.h"
#include "test_support.h"

namespace ge::quant {
namespace {

TEST_CASE("ARQ symmetric per channel takes the larger magnitude with its sign", "[arq]") {
  // Channel 0: min -1 dominates -> 1/128; channel 1: max 2.54 dominates -> 2.54/127.
  const std::vector<float> w = {0.5f, -1.0f, 0.25f, 2.54f, -1.0f, 0.0f};
  const WeightQuantParams p = ArqCalibrate(w.data(), {2, 3}, 0, ArqParams{});
  REQUIRE(p.scale.size() == 2);
  CHECK(p.scale[0] == 1.0f / 128.0f);
  CHECK(p.scale[1] == 2.54f / 127.0f);
  CHECK(p.offset == std::vector<int32_t>{0, 0});
  CHECK(p.quant_bits == 8);
  CHECK(ArqQuantize(w.data(), {2, 3}, 0, p) == std::vector<int8_t>{64, -128, 32, 127, -50, 0});
}

TEST_CASE("ARQ symmetric tie of max and min magnitudes uses max over 127", "[arq]") {
  const std::vector<float> w = {1.0f, -1.0f};
  const WeightQuantParams p = ArqCalibrate(w.data(), {2}, 0, ArqParams{.channel_wise = false});
  REQUIRE(p.scale.size() == 1);
  CHECK(p.scale[0] == 1.0f / 127.0f);
  CHECK(ArqQuantize(w.data(), {2}, 0, p) == std::vector<int8_t>{127, -127});
}

TEST_CASE("ARQ asymmetric clamps the range to include 0", "[arq]") {
  // [-1, 3]: scale 4/255, offset rint(63.75) - 128 = -64.
  const std::vector<float> w = {-1.0f, 3.0f, 0.5f, 2.0f};
  const ArqParams params{.channel_wise = true, .quant_bits = 8, .asymmetric = true};
  const WeightQuantParams p = ArqCalibrate(w.data(), {2, 2}, 0, params);
  REQUIRE(p.scale.size() == 2);
  CHECK(p.scale[0] == 4.0f / 255.0f);
  CHECK(p.offset[0] == -64);
  // [0.5, 2] has min clamped to 0: scale 2/255, offset -128.
  CHECK(p.scale[1] == 2.0f / 255.0f);
  CHECK(p.offset[1] == -128);
  // -1 -> rint(-63.75) - 64 = -128; 3 -> rint(191.25) - 64 = 127; 0.5 -> rint(63.75) - 128 = -64; 2 -> 127.
  CHECK(ArqQuantize(w.data(), {2, 2}, 0, p) == std::vector<int8_t>{-128, 127, -64, 127});
}

TEST_CASE("ARQ 7 bits uses 63 and clamps to -64..63", "[arq]") {
  const std::vector<float> w = {0.63f, -0.1f};
  const WeightQuantParams p = ArqCalibrate(w.data(), {2}, 0, ArqParams{.channel_wise = false, .quant_bits = 7});
  CHECK(p.scale[0] == 0.63f / 63.0f);
  CHECK(p.quant_bits == 7);
  const std::vector<float> wider = {0.63f, -0.7f, 0.7f};
  CHECK(ArqQuantize(wider.data(), {3}, 0, p) == std::vector<int8_t>{63, -64, 63});
}

TEST_CASE("ARQ channel axis 1 for a MatMul weight of shape K by N", "[arq]") {
  // [[1.5, -4], [2, 0.5]]: column 0 {1.5, 2} -> 2/127; column 1 {-4, 0.5} -> 4/128.
  const std::vector<float> w = {1.5f, -4.0f, 2.0f, 0.5f};
  const WeightQuantParams p = ArqCalibrate(w.data(), {2, 2}, 1, ArqParams{});
  REQUIRE(p.scale.size() == 2);
  CHECK(p.scale[0] == 2.0f / 127.0f);
  CHECK(p.scale[1] == 4.0f / 128.0f);
  CHECK(ArqQuantize(w.data(), {2, 2}, 1, p) == std::vector<int8_t>{95, -128, 127, 16});
}

TEST_CASE("ARQ all-zero channel gets scale 1 and quantizes to its zero point", "[arq]") {
  const std::vector<float> w = {0.0f, 0.0f, 1.0f, -0.5f};
  const WeightQuantParams sym = ArqCalibrate(w.data(), {2, 2}, 0, ArqParams{});
  CHECK(sym.scale[0] == 1.0f);
  CHECK(sym.offset[0] == 0);
  const WeightQuantParams asym = ArqCalibrate(w.data(), {2, 2}, 0, ArqParams{.asymmetric = true});
  CHECK(asym.scale[0] == 1.0f);
  CHECK(asym.offset[0] == -128);  // rint(0 / 1) - 128: dequantizes to (q - offset) * scale = 0
  const std::vector<int8_t> q = ArqQuantize(w.data(), {2, 2}, 0, asym);
  CHECK(q[0] == -128);
  CHECK(q[1] == -128);
}

TEST_CASE("ARQ dequantized weights are within half a step of the originals", "[arq]") {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.3f, 2.0f);
  const std::vector<int64_t> dims = {4, 3, 3, 3};
  std::vector<float> w(4 * 27);
  for (float& v : w) v = dist(rng);
  for (const bool asymmetric : {false, true}) {
    const WeightQuantParams p = ArqCalibrate(w.data(), dims, 0, ArqParams{.asymmetric = asymmetric});
    const std::vector<int8_t> q = ArqQuantize(w.data(), dims, 0, p);
    for (size_t i = 0; i < w.size(); ++i) {
      const size_t c = i / 27;
      const double restored = (static_cast<double>(q[i]) - p.offset[c]) * p.scale[c];
      INFO("asymmetric " << asymmetric << " element " << i);
      CHECK(std::fabs(restored - w[i]) <= 0.5 * p.scale[c] * (1 + 1e-5));
    }
  }
}

TEST_CASE("ARQ rejects non-finite weights, overflowing scales and bad shapes", "[arq]") {
  const std::vector<float> nan = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  auto [code, message] = test::ErrorOf([&] { ArqCalibrate(nan.data(), {2}, 0, ArqParams{}); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ARQ") && Catch::Contains("element 1"));

  const std::vector<float> inf = {std::numeric_limits<float>::infinity()};
  CHECK(test::ErrorCodeOf([&] { ArqCalibrate(inf.data(), {1}, 0, ArqParams{}); }) == ErrorCode::kInvalidArgument);

  // max 1e-38 gives scale ~7.9e-41, whose inverse is beyond FLT_MAX.
  const std::vector<float> tiny = {1e-38f, 0.0f};
  std::tie(code, message) = test::ErrorOf([&] { ArqCalibrate(tiny.data(), {2}, 0, ArqParams{}); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("overflows"));

  const std::vector<float> w = {1.0f, 2.0f};
  CHECK_THAT(test::ErrorOf([&] { ArqCalibrate(w.data(), {2}, 1, ArqParams{}); }).second,
             Catch::Contains("channel axis 1"));
  CHECK(test::ErrorCodeOf([&] { ArqCalibrate(w.data(), {0, 2}, 0, ArqParams{}); }) == ErrorCode::kInvalidArgument);
  const WeightQuantParams three{.scale = {1, 1, 1}, .offset = {0, 0, 0}};
  CHECK(test::ErrorCodeOf([&] { ArqQuantize(w.data(), {2}, 0, three); }) == ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge::quant
