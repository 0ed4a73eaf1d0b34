// AscendQuant, AscendDequant, AscendRequant and AscendAntiQuant over millions
// of random values (ties, saturation, NaN, shifts, relu, per channel) against
// scalar float64 references of the documented formulas, exactly: the kernels
// run vectorized per-CPU code paths that must round like the formula.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "quantized_test_support.h"

using namespace ge;
using namespace ge::test;

namespace {

constexpr int64_t kCount = 1 << 21;  // over the kernels' parallel grain, with a ragged tail below
constexpr int64_t kRaggedCount = kCount + 37;

// saturate(round_half_even(v)) to [lo, hi]; NaN gives lo.
double SaturatedRound(double v, double lo, double hi) {
  if (std::isnan(v)) return lo;
  return std::clamp(std::nearbyint(v), lo, hi);
}

// Floats of every kind the quantizer meets: exact ties of x * scale + offset
// (halves over a power-of-two scale), values near the saturation bounds,
// huge ones, infinities, NaN, and plain random values.
std::vector<float> QuantInputs(std::mt19937& rng, double scale, double offset, double hi) {
  std::vector<float> x(kRaggedCount);
  std::uniform_int_distribution<int> kind(0, 9);
  std::uniform_int_distribution<int64_t> integer(-2 * static_cast<int64_t>(hi), 2 * static_cast<int64_t>(hi));
  std::uniform_real_distribution<double> uniform(-3 * hi / scale, 3 * hi / scale);
  std::uniform_real_distribution<double> exponent(-30, 60);
  for (float& v : x) {
    switch (kind(rng)) {
      case 0:  // a tie: (k + 0.5 - offset) / scale
        v = static_cast<float>((static_cast<double>(integer(rng)) + 0.5 - offset) / scale);
        break;
      case 1:
        v = static_cast<float>((hi + 0.5 - offset) / scale);
        break;
      case 2:
        v = static_cast<float>(std::copysign(std::exp2(exponent(rng)), uniform(rng)));
        break;
      case 3: {
        const int special = static_cast<int>(integer(rng) & 3);
        v = special == 0   ? std::numeric_limits<float>::quiet_NaN()
            : special == 1 ? std::numeric_limits<float>::infinity()
            : special == 2 ? -std::numeric_limits<float>::infinity()
                           : -0.0f;
        break;
      }
      default:
        v = static_cast<float>(uniform(rng));
    }
  }
  return x;
}

template <typename Q>
void CheckQuant(DataType out, float scale, float offset, bool sqrt_mode, std::mt19937& rng) {
  const double s = sqrt_mode ? static_cast<double>(scale) * scale : scale;
  const double lo = std::numeric_limits<Q>::lowest(), hi = std::numeric_limits<Q>::max();
  const std::vector<float> x = QuantInputs(rng, s, offset, hi);
  Graph g;
  Node* node = AddQuantOp(
      g, "AscendQuant", {g.AddInput("x", DataType::kFloat, {kRaggedCount})}, out, {kRaggedCount},
      {{"scale", scale}, {"offset", offset}, {"sqrt_mode", sqrt_mode}, {"dst_type", static_cast<int64_t>(out)}});
  const Tensor y = RunCpuKernel(*node, {Tensor::FromVector(DataType::kFloat, Shape{kRaggedCount}, x)})[0];
  const Q* q = y.data_as<Q>();
  int64_t mismatches = 0, first = -1;
  for (int64_t i = 0; i < kRaggedCount; ++i) {
    const double expected = SaturatedRound(static_cast<double>(x[i]) * s + offset, lo, hi);
    if (static_cast<double>(q[i]) != expected && mismatches++ == 0) first = i;
  }
  INFO(DataTypeName(out) << " scale " << scale << " offset " << offset << " sqrt_mode " << sqrt_mode
                         << " first mismatch at " << first << " x " << (first >= 0 ? x[first] : 0.0f) << " got "
                         << (first >= 0 ? static_cast<double>(q[first]) : 0.0));
  CHECK(mismatches == 0);
}

// The documented dequant / requant value of x for one packed word, before relu.
double Scaled(int32_t x, float scale, int shift, bool sqrt_mode) {
  const double s = sqrt_mode ? static_cast<double>(scale) * scale : scale;
  if (shift == 0) return static_cast<double>(x) * s;
  const double floored = std::floor(static_cast<double>(x) / std::exp2(shift));
  return std::clamp(floored, -32768.0, 32767.0) * (s * std::exp2(shift));
}

struct ChannelWord {
  float scale;
  int shift, offset;
};

// Per-channel words over x [2, C, 7, 9] (rows of 63 contiguous elements), some with shifts and offsets.
std::vector<ChannelWord> RandomWords(int64_t channels, std::mt19937& rng, bool with_offsets) {
  std::uniform_real_distribution<float> scale(-0.02f, 0.02f);
  std::uniform_int_distribution<int> shift(0, 40), offset(-256, 255), coin(0, 2);
  std::vector<ChannelWord> words;
  for (int64_t c = 0; c < channels; ++c) {
    // Power-of-two scales make exact ties of x * scale; a few large scales saturate.
    const int kind = coin(rng);
    const float s = kind == 0 ? std::ldexp(1.0f, -static_cast<int>(c % 12)) : kind == 1 ? scale(rng) : 3.0e4f;
    words.push_back({c % 5 == 0 ? -s : s, coin(rng) == 0 ? shift(rng) : 0, with_offsets ? offset(rng) : 0});
  }
  return words;
}

}  // namespace

TEST_CASE("AscendQuant matches the float64 formula on millions of values incl. ties and saturation",
          "[device][ascend_quant][ascend_quant_random]") {
  std::mt19937 rng(99);
  CheckQuant<int8_t>(DataType::kInt8, 0.5f, 0.0f, false, rng);
  CheckQuant<int8_t>(DataType::kInt8, 0.37f, -2.0f, false, rng);
  CheckQuant<int8_t>(DataType::kInt8, 0.0123f, 3.5f, true, rng);
  CheckQuant<int16_t>(DataType::kInt16, 0.25f, 1.5f, false, rng);
  CheckQuant<int16_t>(DataType::kInt16, 3.1f, 0.0f, true, rng);
}

TEST_CASE("AscendDequant and AscendRequant match the float64 formula per channel with shifts and relu",
          "[device][ascend_quant][ascend_quant_random]") {
  std::mt19937 rng(5);
  const int64_t channels = 4099;  // [2, C, 7, 9]: 2 * 4099 * 63 = 516474 elements per run
  const Shape shape{2, channels, 7, 9};
  const int64_t count = shape.NumElements();
  std::uniform_int_distribution<int> kind(0, 3);
  std::uniform_int_distribution<int32_t> full(std::numeric_limits<int32_t>::lowest(),
                                              std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int32_t> small(-70000, 70000);
  Tensor x(DataType::kInt32, shape);
  int32_t* xv = x.data_as<int32_t>();
  for (int64_t i = 0; i < count; ++i) xv[i] = kind(rng) == 0 ? full(rng) : small(rng);
  for (const bool relu : {false, true}) {
    for (const bool requant : {false, true}) {
      const bool sqrt_mode = !requant && relu;
      const std::vector<ChannelWord> words = RandomWords(channels, rng, requant);
      std::vector<uint64_t> packed;
      for (const ChannelWord& w : words) packed.push_back(PackScale(w.scale, w.shift, w.offset));
      Graph g;
      const DataType out = requant ? DataType::kInt8 : DataType::kFloat;
      QuantAttrs attrs = {{"relu_flag", relu}, {"channel_axis", int64_t{1}}};
      if (!requant) {
        attrs.push_back({"sqrt_mode", sqrt_mode});
        attrs.push_back({"dtype", int64_t{0}});
      }
      Node* node =
          AddQuantOp(g, requant ? "AscendRequant" : "AscendDequant",
                     {g.AddInput("x", DataType::kInt32, shape), g.AddInput("s", DataType::kUInt64, {channels})}, out,
                     shape, attrs);
      const Tensor y = RunCpuKernel(*node, {x, Tensor::FromVector(DataType::kUInt64, Shape{channels}, packed)})[0];
      int64_t mismatches = 0, first = -1;
      for (int64_t i = 0; i < count; ++i) {
        const ChannelWord& w = words[(i / 63) % channels];
        double v = Scaled(xv[i], w.scale, w.shift, sqrt_mode);
        if (relu) v = std::max(0.0, v);
        const double expected = requant ? std::clamp(std::nearbyint(v) + w.offset, -128.0, 127.0)
                                        : static_cast<double>(static_cast<float>(v));
        const double got = requant ? y.data_as<int8_t>()[i] : y.data_as<float>()[i];
        if (got != expected && mismatches++ == 0) first = i;
      }
      INFO((requant ? "requant" : "dequant")
           << " relu " << relu << " sqrt_mode " << sqrt_mode << " first mismatch at " << first);
      CHECK(mismatches == 0);
    }
  }
}

TEST_CASE("AscendAntiQuant matches the float64 formula on all int8 and int16 values",
          "[device][ascend_quant][ascend_quant_random]") {
  std::mt19937 rng(17);
  for (const DataType in : {DataType::kInt8, DataType::kInt16}) {
    const int64_t lo = in == DataType::kInt8 ? -128 : -32768, hi = -lo - 1;
    const Tensor x = in == DataType::kInt8 ? RandomInts<int8_t>(in, Shape{kRaggedCount}, rng, lo, hi)
                                           : RandomInts<int16_t>(in, Shape{kRaggedCount}, rng, lo, hi);
    const float scale = 0.0371f, offset = -3.25f;
    Graph g;
    Node* node = AddQuantOp(g, "AscendAntiQuant", {g.AddInput("x", in, {kRaggedCount})}, DataType::kFloat,
                            {kRaggedCount}, {{"scale", scale}, {"offset", offset}, {"dtype", int64_t{0}}});
    const Tensor y = RunCpuKernel(*node, {x})[0];
    const std::vector<double> xs = ToDoubles(x);
    int64_t mismatches = 0;
    for (int64_t i = 0; i < kRaggedCount; ++i) {
      mismatches += y.data_as<float>()[i] != static_cast<float>((xs[i] + offset) * static_cast<double>(scale));
    }
    INFO(DataTypeName(in));
    CHECK(mismatches == 0);
  }
}
