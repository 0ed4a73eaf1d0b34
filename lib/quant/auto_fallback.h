// The automatic fallback ladder (docs/quantization.md, "Automatic fallback").
//
// AMCT, NNCF and INC fall back only to float. Here the layers that miss the
// per-layer cosine gate first try the cheaper rungs, all at once, one
// evaluation of the model per round: another activation calibrator
// (IFMR <-> HFMG), then INT16 activations (an INT16 layer: INT8 first, as the
// seed prescribes). If the output still misses its target, the layers are
// ranked once by sensitivity (layer_sensitivity.h) and a binary search finds
// the fewest most-sensitive layers whose return to float lifts the output to
// the target: about log2(layers) evaluations instead of one per layer and
// rung, and every other layer stays quantized.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ge/compare.h"
#include "ge/quantize.h"
#include "quant/calibration.h"
#include "quant/model_compare.h"

namespace ge::quant {

// A deploy graph (requant fusion off, so every quantized layer's float output
// exists) compared layer by layer with the float graph.
struct Evaluation {
  ModelComparison comparison;
  std::map<std::string, double> layer_cosine;  // quantized layer -> cosine of its float output
  double output_cosine = 0;
};

// `reference` is `float_graph` captured on `inputs` (model_compare.h).
// `set`: every metric (the comparison a report shows), or the cosines alone.
Evaluation EvaluateQuantization(const Graph& float_graph, const CapturedReference& reference,
                                const std::vector<QuantLayer>& layers, const QuantRecord& record,
                                const std::vector<Tensor>& inputs, const Options& options,
                                MetricSet set = MetricSet::kAll);

struct FallbackTargets {
  double layer_cosine = 0.99;
  double output_cosine = 0.99;
};

// Climbs the ladder until the targets hold or no layer can climb further.
// Updates `layers` (configs, quantize flags and reasons) and `record`, and
// returns the steps and the last evaluation.
struct FallbackOutcome {
  std::vector<FallbackStep> steps;
  Evaluation evaluation;
};

FallbackOutcome RunFallbackLadder(const Graph& float_graph, std::vector<QuantLayer>& layers, QuantRecord& record,
                                  const ActivationCache& cache, const FallbackTargets& targets,
                                  const std::vector<Tensor>& inputs, const Options& options,
                                  const std::function<void(size_t, size_t)>& progress);

}  // namespace ge::quant
