// The reference side of a layer-wise comparison, run once and kept, so that
// a loop comparing many candidate models against it (the fallback ladder)
// does not compile and run the float model again for every candidate.
#pragma once

#include <vector>

#include "ge/compare.h"
#include "quant/activation_capture.h"
#include "quant/compare_metrics.h"

namespace ge::quant {

struct CapturedReference {
  // Compiles `reference` with the options and runs it on `inputs`.
  CapturedReference(const Graph& reference, const std::vector<Tensor>& inputs, const Options& options);

  ActivationCapture capture;
  ActivationCapture::Captured run;
};

// CompareModels (ge/compare.h) against a reference captured on the same inputs.
ModelComparison CompareWithReference(const CapturedReference& reference, const Graph& model,
                                     const std::vector<Tensor>& inputs, const CompareOptions& options,
                                     MetricSet set = MetricSet::kAll);

}  // namespace ge::quant
