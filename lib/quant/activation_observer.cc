#include "quant/activation_observer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/core.h>

#include "ge/error.h"
#include "quant/hfmg.h"
#include "quant/ifmr.h"
#include "quant/minmax_scale.h"

namespace ge::quant {
namespace {

// IFMR searches over all calibration data at once, so it keeps every value.
class IfmrObserver : public ActivationObserver {
 public:
  explicit IfmrObserver(const IfmrParams& params) : params_(params) {}
  void Observe(std::span<const float> batch) override { data_.insert(data_.end(), batch.begin(), batch.end()); }
  ActivationQuantParams Finish() const override { return IfmrCalibrate(data_, params_); }

 private:
  IfmrParams params_;
  std::vector<float> data_;
};

class HfmgActivationObserver : public ActivationObserver {
 public:
  explicit HfmgActivationObserver(const HfmgParams& params) : hfmg_(params) {}
  void Observe(std::span<const float> batch) override { hfmg_.Observe(batch); }
  ActivationQuantParams Finish() const override { return hfmg_.Finish(); }

 private:
  HfmgObserver hfmg_;
};

// Running min/max; 0 is always inside the range, as in ARQ's formulas.
class MinMaxObserver : public ActivationObserver {
 public:
  MinMaxObserver(QuantDType dst_type, bool asymmetric) : dst_type_(dst_type), asymmetric_(asymmetric) {}

  void Observe(std::span<const float> batch) override {
    for (size_t i = 0; i < batch.size(); ++i) {
      if (!std::isfinite(batch[i])) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("MinMax: calibration value {} is {}", i, batch[i]));
      }
      min_ = std::min(min_, batch[i]);
      max_ = std::max(max_, batch[i]);
    }
    observed_ = observed_ || !batch.empty();
  }

  ActivationQuantParams Finish() const override {
    if (!observed_) throw Error(ErrorCode::kInvalidArgument, "MinMax: no calibration data was observed");
    const int bits = QuantBits(dst_type_);
    ActivationQuantParams result;
    result.dst_type = dst_type_;
    result.scale = MinMaxScale(min_, max_, bits, asymmetric_);
    if (result.scale == 0.0f) result.scale = 1.0f;  // all zeros: any scale is exact
    if (!ScaleIsUsable(result.scale)) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("MinMax: range [{}, {}] gives scale {}, whose inverse overflows float", min_, max_,
                              result.scale));
    }
    result.offset = MinMaxOffset(min_, result.scale, bits, asymmetric_);
    return result;
  }

 private:
  QuantDType dst_type_;
  bool asymmetric_;
  float min_ = 0.0f;
  float max_ = 0.0f;
  bool observed_ = false;
};

}  // namespace

std::unique_ptr<ActivationObserver> MakeActivationObserver(const LayerQuantConfig& cfg) {
  switch (cfg.activation_algo) {
    case ActivationAlgo::kIfmr:
      return std::make_unique<IfmrObserver>(cfg.ifmr);
    case ActivationAlgo::kHfmg:
      return std::make_unique<HfmgActivationObserver>(cfg.hfmg);
    case ActivationAlgo::kMinMax:
      return std::make_unique<MinMaxObserver>(cfg.dst_type(), cfg.asymmetric_activations());
  }
  throw Error(ErrorCode::kInternal, "MakeActivationObserver: unknown activation algorithm");
}

}  // namespace ge::quant
