// HFMG: histogram building and widening by hand, the analytic L2 error against
// numeric integration, and the chosen range on data whose answer is known.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/hfmg.h"
#include "test_support.h"

namespace ge::quant {
namespace {

TEST_CASE("HFMG histogram spans the first batch", "[hfmg]") {
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 4});
  const std::vector<float> batch = {0.0f, 1.0f, 2.0f, 3.0f};
  hfmg.Observe(batch);
  CHECK(hfmg.min() == 0.0f);
  CHECK(hfmg.max() == 3.0f);
  // Bins of width 0.75: 0 -> 0, 1 -> 1, 2 -> 2, 3 (the upper edge) -> 3.
  CHECK(hfmg.counts() == std::vector<double>{1, 1, 1, 1});
}

TEST_CASE("HFMG widening re-bins old counts uniformly within their bins", "[hfmg]") {
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 2});
  hfmg.Observe(std::vector<float>{0.0f, 1.0f});  // bins [0, 0.5), [0.5, 1]: {1, 1}
  hfmg.Observe(std::vector<float>{-0.5f});       // range [-0.5, 1], bins [-0.5, 0.25), [0.25, 1]
  // Old bin [0, 0.5) puts half its count in each new bin; old [0.5, 1] goes to bin 1; -0.5 to bin 0.
  REQUIRE(hfmg.counts().size() == 2);
  CHECK(hfmg.counts()[0] == Approx(1.5));
  CHECK(hfmg.counts()[1] == Approx(1.5));
  CHECK(hfmg.min() == -0.5f);

  HfmgObserver wide(HfmgParams{.num_of_bins = 4});
  wide.Observe(std::vector<float>{0.0f, 1.0f});  // width 0.25: {1, 0, 0, 1}
  wide.Observe(std::vector<float>{2.0f});        // width 0.5: [0,.25)->0, [.75,1)->1, 2->3
  CHECK(wide.counts() == std::vector<double>{1, 1, 0, 1});
}

TEST_CASE("HFMG widening from a single-valued batch keeps the count at that value", "[hfmg]") {
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 4});
  hfmg.Observe(std::vector<float>{1.0f, 1.0f});
  hfmg.Observe(std::vector<float>{0.0f});
  // Range [0, 1], width 0.25: the two 1s land in the last bin.
  CHECK(hfmg.counts() == std::vector<double>{1, 0, 0, 2});
}

// The same error by the midpoint rule: many points per bin, each rounded to the nearest level.
double NumericRangeError(const std::vector<double>& counts, double min, double max, int64_t first, int64_t last,
                         int bits) {
  const auto bins = static_cast<int64_t>(counts.size());
  const double width = (max - min) / bins;
  const double lo = min + first * width;
  const double hi = min + (last + 1) * width;
  const double step = (hi - lo) / (std::pow(2.0, bits) - 1);
  const int points = 40000;
  double error = 0.0;
  for (int64_t i = 0; i < bins; ++i) {
    for (int j = 0; j < points; ++j) {
      const double x = min + (i + (j + 0.5) / points) * width;
      const double level = lo + std::nearbyint((std::clamp(x, lo, hi) - lo) / step) * step;
      error += counts[i] / points * (x - level) * (x - level);
    }
  }
  return error;
}

TEST_CASE("HFMG analytic L2 error agrees with numeric integration", "[hfmg]") {
  const std::vector<double> counts = {3, 0, 5, 1, 7, 2, 0, 4};
  for (const int bits : {2, 3, 8}) {
    for (const auto& [first, last] : std::vector<std::pair<int64_t, int64_t>>{{0, 7}, {2, 5}, {1, 6}, {3, 3}}) {
      INFO("bits " << bits << " bins " << first << ".." << last);
      const double analytic = HfmgRangeError(counts, -1.0, 3.0, first, last, bits);
      CHECK(analytic == Approx(NumericRangeError(counts, -1.0, 3.0, first, last, bits)).epsilon(1e-3));
    }
  }
}

TEST_CASE("HFMG single-valued data uses the min-max formulas with 0 included", "[hfmg]") {
  const auto finish = [](float value, bool asymmetric) {
    HfmgObserver hfmg(HfmgParams{.num_of_bins = 1024, .asymmetric = asymmetric});
    hfmg.Observe(std::vector<float>(5, value));
    return hfmg.Finish();
  };
  ActivationQuantParams p = finish(2.0f, true);  // range [0, 2]
  CHECK(p.scale == 2.0f / 255.0f);
  CHECK(p.offset == -128);
  p = finish(-3.0f, true);  // range [-3, 0]: offset rint(3 / (3/255)) - 128
  CHECK(p.scale == 3.0f / 255.0f);
  CHECK(p.offset == 127);
  p = finish(-3.0f, false);
  CHECK(p.scale == 3.0f / 128.0f);
  CHECK(p.offset == 0);
}

TEST_CASE("HFMG trims uniform data by at most a few bins", "[hfmg]") {
  // For a uniform density the L2 optimum clips ~0.3% per side at 8 bits: the
  // scale lands just under the min-max one.
  std::vector<float> data(20001);
  for (int i = 0; i < 20001; ++i) data[i] = -1.0f + static_cast<float>(i) / 10000.0f;
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 1024, .asymmetric = false});
  hfmg.Observe(data);
  const ActivationQuantParams p = hfmg.Finish();
  CHECK(p.scale <= 1.0f / 127.0f);
  CHECK(p.scale >= 0.99f / 127.0f);
}

TEST_CASE("HFMG trims sparse normal tails and beats the min-max range on the data", "[hfmg]") {
  // At 8 bits the L2 optimum of a normal distribution clips its sparse tails a
  // little; a lone far outlier, by contrast, costs more clipped than kept.
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> data(100000);
  for (float& v : data) v = dist(rng);
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 2048, .asymmetric = true});
  hfmg.Observe(std::span<const float>(data).first(30000));
  hfmg.Observe(std::span<const float>(data).subspan(30000));
  const ActivationQuantParams p = hfmg.Finish();
  const float minmax_scale = (hfmg.max() - hfmg.min()) / 255.0f;
  CHECK(p.scale < 0.95f * minmax_scale);
  // The chosen factors must score a lower quantization MSE on the data than min/max does.
  const auto mse = [&](float scale, int32_t offset) {
    double sum = 0.0;
    for (const float x : data) {
      const double q = std::clamp<double>(std::nearbyint(x / scale) + offset, -128, 127);
      const double e = (q - offset) * scale - x;
      sum += e * e;
    }
    return sum / data.size();
  };
  const auto minmax_offset = static_cast<int32_t>(std::nearbyint(-hfmg.min() / minmax_scale)) - 128;
  CHECK(mse(p.scale, p.offset) < mse(minmax_scale, minmax_offset));
}

TEST_CASE("HFMG degenerate data gives scale 1, and bad input fails", "[hfmg]") {
  HfmgObserver zeros(HfmgParams{});
  zeros.Observe(std::vector<float>(8, 0.0f));
  CHECK(zeros.Finish().scale == 1.0f);

  HfmgObserver empty(HfmgParams{});
  CHECK_THAT(test::ErrorOf([&] { empty.Finish(); }).second, Catch::Contains("HFMG"));
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  CHECK_THAT(test::ErrorOf([&] { empty.Observe(nan); }).second, Catch::Contains("HFMG"));
  CHECK(test::ErrorCodeOf([] { HfmgObserver(HfmgParams{.num_of_bins = 0}); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("HFMG INT16 reports its dst_type and a 16-bit scale", "[hfmg]") {
  HfmgObserver hfmg(HfmgParams{.num_of_bins = 1024, .asymmetric = false, .dst_type = QuantDType::kInt16});
  hfmg.Observe(std::vector<float>{-2.0f, 2.0f});
  const ActivationQuantParams p = hfmg.Finish();
  CHECK(p.dst_type == QuantDType::kInt16);
  CHECK(p.scale == 2.0f / 32767.0f);
}

}  // namespace
}  // namespace ge::quant
