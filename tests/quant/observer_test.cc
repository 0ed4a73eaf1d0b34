// MakeActivationObserver picks the calibrator the layer config names, and the
// MinMax observer's factors by hand.
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "quant/activation_observer.h"
#include "quant/hfmg.h"
#include "quant/ifmr.h"
#include "test_support.h"

namespace ge::quant {
namespace {

LayerQuantConfig WithAlgo(ActivationAlgo algo, bool asymmetric) {
  LayerQuantConfig cfg;
  cfg.activation_algo = algo;
  cfg.ifmr.asymmetric = asymmetric;
  cfg.hfmg.asymmetric = asymmetric;
  cfg.hfmg.num_of_bins = 1024;
  return cfg;
}

TEST_CASE("MinMax observer uses the running range with 0 included", "[observer]") {
  auto symmetric = MakeActivationObserver(WithAlgo(ActivationAlgo::kMinMax, false));
  symmetric->Observe(std::vector<float>{0.5f, 1.5f});
  symmetric->Observe(std::vector<float>{-2.0f, 1.0f});
  ActivationQuantParams p = symmetric->Finish();
  CHECK(p.scale == 2.0f / 128.0f);  // min -2 dominates
  CHECK(p.offset == 0);

  // Positive data only: the range still starts at 0, so scale 4/255, offset -128.
  auto asymmetric = MakeActivationObserver(WithAlgo(ActivationAlgo::kMinMax, true));
  asymmetric->Observe(std::vector<float>{1.0f, 4.0f});
  p = asymmetric->Finish();
  CHECK(p.scale == 4.0f / 255.0f);
  CHECK(p.offset == -128);

  LayerQuantConfig int16 = WithAlgo(ActivationAlgo::kMinMax, false);
  int16.ifmr.dst_type = QuantDType::kInt16;
  auto wide = MakeActivationObserver(int16);
  wide->Observe(std::vector<float>{3.0f});
  p = wide->Finish();
  CHECK(p.scale == 3.0f / 32767.0f);
  CHECK(p.dst_type == QuantDType::kInt16);
}

TEST_CASE("MinMax observer fails on NaN and on no data", "[observer]") {
  auto observer = MakeActivationObserver(WithAlgo(ActivationAlgo::kMinMax, true));
  CHECK_THAT(test::ErrorOf([&] { observer->Finish(); }).second, Catch::Contains("no calibration data"));
  const std::vector<float> nan = {std::numeric_limits<float>::quiet_NaN()};
  CHECK(test::ErrorCodeOf([&] { observer->Observe(nan); }) == ErrorCode::kInvalidArgument);
}

TEST_CASE("IFMR observer calibrates over all batches together", "[observer]") {
  const std::vector<float> first = {-1.0f, 0.2f, 0.7f};
  const std::vector<float> second = {2.5f, -0.3f};
  const LayerQuantConfig cfg = WithAlgo(ActivationAlgo::kIfmr, true);
  auto observer = MakeActivationObserver(cfg);
  observer->Observe(first);
  observer->Observe(second);
  const std::vector<float> all = {-1.0f, 0.2f, 0.7f, 2.5f, -0.3f};
  const ActivationQuantParams expected = IfmrCalibrate(all, cfg.ifmr);
  const ActivationQuantParams got = observer->Finish();
  CHECK(got.scale == expected.scale);
  CHECK(got.offset == expected.offset);
}

TEST_CASE("HFMG observer is the histogram observer", "[observer]") {
  const LayerQuantConfig cfg = WithAlgo(ActivationAlgo::kHfmg, false);
  auto observer = MakeActivationObserver(cfg);
  HfmgObserver direct(cfg.hfmg);
  for (const std::vector<float>& batch : {std::vector<float>{0.1f, -0.4f}, std::vector<float>{3.0f, 1.0f}}) {
    observer->Observe(batch);
    direct.Observe(batch);
  }
  CHECK(observer->Finish().scale == direct.Finish().scale);
}

}  // namespace
}  // namespace ge::quant
