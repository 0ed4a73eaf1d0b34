// The activation calibrators behind one interface: calibration feeds every
// batch of a tensor to its observer, then asks for the factors.
#pragma once

#include <memory>
#include <span>

#include "quant/quant_types.h"

namespace ge::quant {

class ActivationObserver {
 public:
  virtual ~ActivationObserver() = default;
  virtual void Observe(std::span<const float> batch) = 0;
  virtual ActivationQuantParams Finish() const = 0;
};

// The observer `cfg` asks for: IFMR (keeps every observed value and runs
// IfmrCalibrate at Finish), HFMG (HfmgObserver) or MinMax (running min/max
// with 0 included; scale/offset by ARQ's symmetric or asymmetric formulas at
// the activation bit width).
std::unique_ptr<ActivationObserver> MakeActivationObserver(const LayerQuantConfig& cfg);

}  // namespace ge::quant
