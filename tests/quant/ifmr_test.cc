// IFMR against a naive float64 re-implementation of its search (sort for the
// anchors, scan every candidate) and hand-computed anchors and factors.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/ifmr.h"
#include "test_support.h"

namespace ge::quant {
namespace {

struct Candidate {
  double scale = 0.0;
  int offset = 0;
  double mse = 0.0;
};

// Every candidate of the search, in float64, from the documented formulas.
std::vector<Candidate> NaiveIfmrCandidates(const std::vector<float>& data, const IfmrParams& p) {
  std::vector<double> sorted(data.begin(), data.end());
  std::sort(sorted.begin(), sorted.end());
  const auto n = static_cast<int64_t>(sorted.size());
  const auto k_max = std::max<int64_t>(1, n - static_cast<int64_t>(std::floor(double{p.max_percentile} * n)));
  const auto k_min = std::max<int64_t>(1, n - static_cast<int64_t>(std::floor(double{p.min_percentile} * n)));
  const double max0 = std::max(sorted[n - k_max], 0.0);
  const double min0 = std::min(sorted[k_min - 1], 0.0);
  const double half = p.dst_type == QuantDType::kInt16 ? 32768.0 : 128.0;
  std::vector<Candidate> out;
  for (int i = 0;; ++i) {
    const double r = double{p.search_range_start} + i * double{p.search_step};
    // The end is a candidate when it is a whole number of steps away, up to float rounding.
    if (r > double{p.search_range_end} + 1e-3 * double{p.search_step}) break;
    double lo, hi, s;
    if (p.asymmetric) {
      lo = min0;
      hi = r * max0;
      s = (hi - lo) / (2 * half - 1);
    } else {
      const double a = std::fabs(max0) >= std::fabs(min0) ? max0 : min0;
      hi = r * std::fabs(a);
      lo = -hi;
      s = a > 0 ? hi / (half - 1) : hi / half;
    }
    double sum = 0.0;
    for (const float x : data) {
      const double e = std::nearbyint(std::clamp<double>(x, lo, hi) / s) * s - x;
      sum += e * e;
    }
    const int offset = p.asymmetric ? -static_cast<int>(std::nearbyint(lo / s)) - static_cast<int>(half) : 0;
    out.push_back({s, offset, sum / n});
  }
  return out;
}

// The result must be one of the naive candidates (same scale to float
// precision, same offset) and score the least error (up to float rounding).
void CheckAgainstNaive(const std::vector<float>& data, const IfmrParams& params) {
  const ActivationQuantParams got = IfmrCalibrate(data, params);
  const std::vector<Candidate> candidates = NaiveIfmrCandidates(data, params);
  REQUIRE(candidates.size() == 61);
  double best = std::numeric_limits<double>::infinity();
  for (const Candidate& c : candidates) best = std::min(best, c.mse);
  const auto match = std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
    return std::fabs(c.scale - got.scale) <= 1e-5 * c.scale;
  });
  REQUIRE(match != candidates.end());
  CHECK(match->offset == got.offset);
  CHECK(match->mse <= best * (1 + 1e-6));
  CHECK(got.dst_type == params.dst_type);
}

std::vector<float> NormalData(int n, float mean, float stddev, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> dist(mean, stddev);
  std::vector<float> data(n);
  for (float& v : data) v = dist(rng);
  return data;
}

TEST_CASE("IFMR symmetric matches a naive float64 search", "[ifmr]") {
  std::vector<float> data = NormalData(20000, 0.0f, 1.0f, 1);
  data.push_back(9.0f);  // an outlier the percentile anchor keeps and the clip search weighs
  CheckAgainstNaive(data, IfmrParams{.asymmetric = false});
  for (float& v : data) v = -v;  // min dominates: s = c / 128
  CheckAgainstNaive(data, IfmrParams{.asymmetric = false});
}

TEST_CASE("IFMR asymmetric matches a naive float64 search", "[ifmr]") {
  std::vector<float> data = NormalData(20000, 0.5f, 1.0f, 2);
  CheckAgainstNaive(data, IfmrParams{});
  for (float& v : data) v = std::max(v, 0.0f);  // ReLU output: min0 is 0, offset -128
  CheckAgainstNaive(data, IfmrParams{});
  CHECK(IfmrCalibrate(data, IfmrParams{}).offset == -128);
}

TEST_CASE("IFMR INT16 and custom percentiles match a naive float64 search", "[ifmr]") {
  std::vector<float> data = NormalData(5000, 0.2f, 3.0f, 3);
  CheckAgainstNaive(data, IfmrParams{.max_percentile = 0.99f, .min_percentile = 0.98f, .dst_type = QuantDType::kInt16});
  CheckAgainstNaive(data, IfmrParams{.max_percentile = 0.995f, .asymmetric = false, .dst_type = QuantDType::kInt16});
}

TEST_CASE("IFMR anchors are the k-th largest and smallest values", "[ifmr]") {
  // One candidate (ratio 1): the anchors alone fix the factors.
  IfmrParams params{.search_range_start = 1.0f, .search_range_end = 1.005f, .max_percentile = 0.99f};
  std::vector<float> data(1000);
  for (int i = 0; i < 1000; ++i) data[i] = static_cast<float>(i + 1);
  // k = 1000 - floor(990) = 10: the 10th largest of 1..1000 is 991; min0 clamps to 0.
  ActivationQuantParams p = IfmrCalibrate(data, params);
  CHECK(p.scale == 991.0f / 255.0f);
  CHECK(p.offset == -128);
  // Symmetric on -1000..-1 with min_percentile 0.99: A = -991, s = 991 / 128.
  for (float& v : data) v = -v;
  params.asymmetric = false;
  params.min_percentile = 0.99f;
  p = IfmrCalibrate(data, params);
  CHECK(p.scale == 991.0f / 128.0f);
  CHECK(p.offset == 0);
  // The default 0.999999 of 1000 values: k = 1, the extreme itself.
  params.min_percentile = 0.999999f;
  CHECK(IfmrCalibrate(data, params).scale == 1000.0f / 128.0f);
}

TEST_CASE("IFMR asymmetric offset and INT16 symmetric scale by hand", "[ifmr]") {
  const IfmrParams one{.search_range_start = 1.0f, .search_range_end = 1.005f, .max_percentile = 1.0f,
                       .min_percentile = 1.0f};
  const std::vector<float> data = {-1.0f, 3.0f, 0.5f};
  // s = 4/255, offset = -rint(-63.75) - 128 = -64.
  ActivationQuantParams p = IfmrCalibrate(data, one);
  CHECK(p.scale == 4.0f / 255.0f);
  CHECK(p.offset == -64);
  IfmrParams int16 = one;
  int16.asymmetric = false;
  int16.dst_type = QuantDType::kInt16;
  p = IfmrCalibrate(data, int16);
  CHECK(p.scale == 3.0f / 32767.0f);
  CHECK(p.offset == 0);
  CHECK(p.dst_type == QuantDType::kInt16);
}

TEST_CASE("IFMR all-zero data gives scale 1", "[ifmr]") {
  const std::vector<float> zeros(16, 0.0f);
  const ActivationQuantParams p = IfmrCalibrate(zeros, IfmrParams{.asymmetric = false});
  CHECK(p.scale == 1.0f);
  CHECK(p.offset == 0);
}

TEST_CASE("IFMR rejects NaN, Inf, empty data and bad parameters", "[ifmr]") {
  std::vector<float> data = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  auto [code, message] = test::ErrorOf([&] { IfmrCalibrate(data, IfmrParams{}); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("IFMR"));
  data[1] = -std::numeric_limits<float>::infinity();
  CHECK_THAT(test::ErrorOf([&] { IfmrCalibrate(data, IfmrParams{}); }).second, Catch::Contains("IFMR"));
  CHECK(test::ErrorCodeOf([] { IfmrCalibrate({}, IfmrParams{}); }) == ErrorCode::kInvalidArgument);
  const std::vector<float> ok = {1.0f};
  CHECK(test::ErrorCodeOf([&] { IfmrCalibrate(ok, IfmrParams{.search_step = 0.0f}); }) ==
        ErrorCode::kInvalidArgument);
  CHECK(test::ErrorCodeOf([&] { IfmrCalibrate(ok, IfmrParams{.max_percentile = 0.4f}); }) ==
        ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace ge::quant
