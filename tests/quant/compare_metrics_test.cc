// msaccucmp metrics (lib/quant/compare_metrics.h) against values worked out by
// hand from the documented formulas.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/compare_metrics.h"
#include "test_support.h"

namespace ge::quant {
namespace {

using Catch::Matchers::Contains;

constexpr double kEps = 1.1920928955078125e-07;  // float32 epsilon, 2^-23

Tensor Floats(std::vector<float> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  return Tensor::FromVector(DataType::kFloat, Shape{n}, values);
}

TEST_CASE("compare metrics: every metric of a small pair matches the hand computation") {
  // mine x = [1, 3, -2, 4], truth y = [1, 2, -2.5, 5]; x - y = [0, 1, 0.5, -1].
  const TensorMetrics m = CompareTensors(Floats({1, 3, -2, 4}), Floats({1, 2, -2.5f, 5}));
  // Σxy = 1 + 6 + 5 + 20 = 32, Σx² = 30, Σy² = 36.25.
  CHECK(m.cosine == Approx(32.0 / std::sqrt(30.0 * 36.25)).epsilon(1e-14));
  CHECK(m.max_abs_error == 1.0);
  CHECK(m.mean_absolute_error == Approx(2.5 / 4).epsilon(1e-14));
  CHECK(m.root_mean_square_error == Approx(std::sqrt(2.25 / 4)).epsilon(1e-14));
  CHECK(m.relative_euclidean_distance == Approx(1.5 / std::sqrt(36.25)).epsilon(1e-14));
  // |x/y - 1| = [0, 0.5, 0.2, 0.2].
  CHECK(m.accumulated_relative_error == Approx(0.9).epsilon(1e-14));
  CHECK(m.max_relative_error == Approx(0.5).epsilon(1e-14));
  CHECK(m.mean_relative_error == Approx(0.9 / 4).epsilon(1e-14));
  // P: (x + 2) / 6 = [1/2, 5/6, 0 -> ε, 1]; Q: (y + 2.5) / 7.5 = [7/15, 9/15, 0 -> ε, 1]; each normalized.
  const std::vector<double> p_raw = {0.5, 5.0 / 6, kEps, 1.0};
  const std::vector<double> q_raw = {7.0 / 15, 9.0 / 15, kEps, 1.0};
  const double p_sum = 7.0 / 3 + kEps, q_sum = 31.0 / 15 + kEps;
  double kl = 0;
  for (size_t i = 0; i < 4; ++i) kl += p_raw[i] / p_sum * std::log((p_raw[i] / p_sum) / (q_raw[i] / q_sum));
  CHECK(m.kl_divergence == Approx(kl).epsilon(1e-12));
  CHECK(m.kl_divergence == Approx(0.0107462106).epsilon(1e-8));
  // Population statistics: mean x = 1.5, var x = (0.25 + 2.25 + 12.25 + 6.25) / 4 = 5.25;
  // mean y = 1.375, var y = (0.140625 + 0.390625 + 15.015625 + 13.140625) / 4 = 7.171875.
  CHECK(m.mean_mine == 1.5);
  CHECK(m.std_mine == Approx(std::sqrt(5.25)).epsilon(1e-14));
  CHECK(m.mean_truth == 1.375);
  CHECK(m.std_truth == Approx(std::sqrt(7.171875)).epsilon(1e-14));
  CHECK(m.note.empty());
}

TEST_CASE("compare metrics: the cosine-only set gives the same cosine and nothing else") {
  const Tensor mine = Floats({1, 3, -2, 4}), truth = Floats({1, 2, -2.5f, 5});
  const TensorMetrics all = CompareTensors(mine, truth);
  const TensorMetrics cosine = CompareTensors(mine, truth, MetricSet::kCosineOnly);
  CHECK(cosine.cosine == all.cosine);
  for (double other : {cosine.max_abs_error, cosine.mean_absolute_error, cosine.root_mean_square_error,
                       cosine.relative_euclidean_distance, cosine.kl_divergence}) {
    CHECK(std::isnan(other));
  }
  // Its special cases are the cosine's: one side zero is NaN with the note.
  const TensorMetrics zero = CompareTensors(Floats({0, 0}), Floats({1, 2}), MetricSet::kCosineOnly);
  CHECK(std::isnan(zero.cosine));
  CHECK_THAT(zero.note, Contains("My Output is all zero"));
}

TEST_CASE("compare metrics: identical tensors give cosine 1 and zero errors") {
  const Tensor t = Floats({0.5f, -1.25f, 3, 7});
  const TensorMetrics m = CompareTensors(t, t.Clone());
  CHECK(m.cosine == Approx(1.0).epsilon(1e-15));
  CHECK(m.cosine <= 1.0);
  CHECK(m.max_abs_error == 0);
  CHECK(m.accumulated_relative_error == 0);
  CHECK(m.relative_euclidean_distance == 0);
  CHECK(m.kl_divergence == 0);
  CHECK(m.root_mean_square_error == 0);
  CHECK(m.max_relative_error == 0);
}

TEST_CASE("compare metrics: cosine is capped at 1 where rounding would exceed it") {
  // In double, Σ(v/‖v‖)² for v = [0.3, 1.1, 1.3] sums to 1 + 2^-52.
  const std::vector<double> v = {0.3, 1.1, 1.3};
  const double norm = std::sqrt(0.3 * 0.3 + 1.1 * 1.1 + 1.3 * 1.3);
  double uncapped = 0;
  for (double e : v) uncapped += (e / norm) * (e / norm);
  REQUIRE(uncapped > 1.0);
  const Tensor t = Tensor::FromVector(DataType::kDouble, Shape{3}, v);
  CHECK(CompareTensors(t, t).cosine == 1.0);
}

TEST_CASE("compare metrics: a one-element tensor is scalar with cosine 1") {
  const TensorMetrics m = CompareTensors(Floats({2}), Floats({4}));
  CHECK(m.cosine == 1.0);
  CHECK_THAT(m.note, Contains("This tensor is scalar"));
  CHECK(m.max_abs_error == 2.0);
  CHECK(m.accumulated_relative_error == 0.5);
  CHECK(m.relative_euclidean_distance == 0.5);
  CHECK(m.kl_divergence == 0);  // a constant tensor is the uniform distribution on both sides
}

TEST_CASE("compare metrics: both sides zero") {
  const TensorMetrics m = CompareTensors(Floats({0, 0, 0}), Floats({0, 0, 0}));
  CHECK(m.cosine == 1.0);
  CHECK(m.relative_euclidean_distance == 0);  // both zero: no distance
  CHECK(std::isnan(m.kl_divergence));
  CHECK(m.accumulated_relative_error == 0);
  CHECK(m.mean_relative_error == 0);
  CHECK_THAT(m.note, Contains("KullbackLeiblerDivergence: both tensors are all zero"));
}

TEST_CASE("compare metrics: My Output all zero") {
  const TensorMetrics m = CompareTensors(Floats({0, 0, 0}), Floats({1, -2, 2}));
  CHECK(std::isnan(m.cosine));
  CHECK_THAT(m.note, Contains("CosineSimilarity: My Output is all zero"));
  CHECK(m.relative_euclidean_distance == 1.0);  // ‖0 - y‖ / ‖y‖
  CHECK(m.max_relative_error == 1.0);           // |0/y - 1| = 1 everywhere
  CHECK(m.mean_relative_error == 1.0);
  CHECK(std::isnan(m.kl_divergence));
  CHECK_THAT(m.note, Contains("KullbackLeiblerDivergence: My Output is all zero"));
}

TEST_CASE("compare metrics: Ground Truth all zero") {
  const TensorMetrics m = CompareTensors(Floats({1, 0, 0}), Floats({0, 0, 0}));
  CHECK(std::isnan(m.cosine));
  CHECK_THAT(m.note, Contains("CosineSimilarity: Ground Truth is all zero"));
  CHECK(std::isnan(m.relative_euclidean_distance));
  CHECK_THAT(m.note, Contains("RelativeEuclideanDistance: Ground Truth is all zero"));
  // Every |y| <= ε counts as 0.
  CHECK(m.accumulated_relative_error == 0);
  CHECK(m.max_relative_error == 0);
  CHECK(m.max_abs_error == 1.0);
}

TEST_CASE("compare metrics: truth elements within epsilon count 0 and the mean divides by all elements") {
  // y[1] = 1e-8 <= ε is skipped although x[1] / y[1] would be huge; y[0]: |3/2 - 1| = 0.5.
  const TensorMetrics m = CompareTensors(Floats({3, 1, 5, 0}), Floats({2, 1e-8f, 5, 1}));
  // y[2]: 0; y[3]: |0/1 - 1| = 1.
  CHECK(m.accumulated_relative_error == Approx(1.5).epsilon(1e-14));
  CHECK(m.max_relative_error == 1.0);
  CHECK(m.mean_relative_error == Approx(1.5 / 4).epsilon(1e-14));
}

TEST_CASE("compare metrics: a KL divergence below epsilon is reported as 0") {
  // Same min-max shape except one element nudged: P and Q differ by about 1e-5, KL ~ 1e-10 < ε.
  const TensorMetrics m = CompareTensors(Floats({0, 1, 2, 3}), Floats({0, 1, 2.00003f, 3}));
  CHECK(m.kl_divergence == 0);
  CHECK(m.max_abs_error > 0);
}

TEST_CASE("compare metrics: integer and float16 tensors are compared as doubles") {
  const Tensor mine = Tensor::FromVector(DataType::kInt32, Shape{2, 2}, std::vector<int32_t>{1, 3, -2, 4});
  // float16 1, 2, -2.5, 5 (bits 0x3C00, 0x4000, 0xC100, 0x4500), shaped differently.
  const Tensor truth = Tensor::FromVector(DataType::kFloat16, Shape{4}, std::vector<uint16_t>{0x3C00, 0x4000, 0xC100, 0x4500});
  const TensorMetrics m = CompareTensors(mine, truth);
  CHECK(m.cosine == Approx(32.0 / std::sqrt(30.0 * 36.25)).epsilon(1e-14));
  CHECK(m.relative_euclidean_distance == Approx(1.5 / std::sqrt(36.25)).epsilon(1e-14));
}

TEST_CASE("compare metrics: bad pairs are errors") {
  CHECK(test::ErrorCodeOf([] { CompareTensors(Floats({1, 2}), Floats({1, 2, 3})); }) == ErrorCode::kInvalidArgument);
  const auto [code, message] = test::ErrorOf([] { CompareTensors(Floats({1, 2}), Floats({1, 2, 3})); });
  CHECK_THAT(message, Contains("2 elements") && Contains("3 elements"));
  const Tensor complex(DataType::kComplex64, Shape{2});
  CHECK(test::ErrorCodeOf([&] { CompareTensors(complex, complex); }) == ErrorCode::kUnsupported);
}

TEST_CASE("compare metrics: empty tensors give NaN metrics") {
  const TensorMetrics m = CompareTensors(Tensor(DataType::kFloat, Shape{0}), Tensor(DataType::kFloat, Shape{0}));
  CHECK(std::isnan(m.cosine));
  CHECK(std::isnan(m.max_abs_error));
  CHECK(m.note == "empty tensor");
}

TEST_CASE("compare metrics: StandardDeviation text and NaN printing") {
  // x = [1, 3]: mean 2, std 1; y = [2, 2]: mean 2, std 0.
  const TensorMetrics m = CompareTensors(Floats({1, 3}), Floats({2, 2}));
  CHECK(StandardDeviationText(m) == "(2;1),(2;0)");
  CHECK(MetricText(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(MetricText(0.25) == "0.25");
  CHECK(MetricText(-std::numeric_limits<double>::infinity()) == "-Inf");
}

}  // namespace
}  // namespace ge::quant
