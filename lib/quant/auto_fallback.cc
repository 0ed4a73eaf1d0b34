#include "quant/auto_fallback.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/core.h>

#include "graph/data_format.h"
#include "quant/deploy_rewrite.h"
#include "quant/layer_sensitivity.h"

namespace ge::quant {
namespace {

// The rungs a layer climbs, cheapest first; kStart is where the config put
// it. An INT8 layer tries the other calibrator, then INT16 where its op has
// an int16 kernel, then float. An INT16 layer first goes to INT8, as the
// seed prescribes for INT16 accuracy loss (compare layer by layer, set the
// worst layers' dst_type to INT8, quantize again), then tries the other
// calibrator at INT8, then float.
enum class Rung { kStart = 0, kInt8, kOtherCalibrator, kInt16, kFloat };

std::string DescribeSetting(const QuantLayer& layer) {
  if (!layer.quantize) return "float";
  if (layer.kind == QuantLayerKind::kWeightOnly) return "weight-only INT8";
  return fmt::format("{} {}", QuantDTypeName(layer.config.dst_type()), ActivationAlgoName(layer.config.activation_algo));
}

// INT16 activations need an int16 kernel of the layer's op; the int16
// convolution is NCHW only (a TensorFlow model's Conv2D is NHWC).
bool HasInt16Form(const Graph& graph, const QuantLayer& layer) {
  if (layer.kind == QuantLayerKind::kWeighted && layer.op_type == "Conv2D") {
    const Node* node = graph.FindNode(layer.name);
    return node != nullptr && !ChannelsLast(*node);
  }
  if (layer.kind == QuantLayerKind::kWeighted) return layer.op_type == "MatMulV2";
  if (layer.kind == QuantLayerKind::kTensorOnly) return layer.op_type == "MaxPool" || layer.op_type == "MaxPoolV3";
  return false;
}

void SetDstType(LayerQuantConfig& config, QuantDType type) { config.ifmr.dst_type = config.hfmg.dst_type = type; }

// Moves the layer to its next quantized rung; returns the rung reached, or
// kFloat when none is left (the ranked search decides which layers go float).
Rung Climb(QuantLayer& layer, Rung rung, const LayerQuantConfig& original, bool has_int16_form) {
  const bool int16_start = original.dst_type() == QuantDType::kInt16;
  if (rung < Rung::kInt8 && int16_start && layer.kind != QuantLayerKind::kWeightOnly) {
    layer.config = original;
    SetDstType(layer.config, QuantDType::kInt8);
    return Rung::kInt8;
  }
  if (rung < Rung::kOtherCalibrator && layer.kind != QuantLayerKind::kWeightOnly) {
    // The other calibrator at the bits the layer has now: a swap never changes dst_type.
    const QuantDType bits = layer.config.dst_type();
    const bool was_ifmr = original.activation_algo == ActivationAlgo::kIfmr;
    layer.config.activation_algo = was_ifmr ? ActivationAlgo::kHfmg : ActivationAlgo::kIfmr;
    layer.config.hfmg.asymmetric = layer.config.ifmr.asymmetric = original.asymmetric_activations();
    SetDstType(layer.config, bits);
    return Rung::kOtherCalibrator;
  }
  if (rung < Rung::kInt16 && !int16_start && has_int16_form) {
    layer.config = original;
    SetDstType(layer.config, QuantDType::kInt16);
    return Rung::kInt16;
  }
  return Rung::kFloat;
}

bool Misses(double cosine, double threshold) { return !std::isnan(cosine) && cosine < threshold; }

// The most layers whose sensitivity the search measures, one evaluation each.
constexpr size_t kMeasuredLayers = 96;

// Cosine a hurts the output more than cosine b; NaN (nothing to compare) hurts least.
bool Worse(double a, double b) {
  if (std::isnan(a)) return false;
  return std::isnan(b) || a < b;
}

}  // namespace

Evaluation EvaluateQuantization(const Graph& float_graph, const CapturedReference& reference,
                                const std::vector<QuantLayer>& layers, const QuantRecord& record,
                                const std::vector<Tensor>& inputs, const Options& options, MetricSet set) {
  DeployOptions deploy;
  deploy.requant_fusion = false;  // every quantized layer keeps a float output to compare
  std::unique_ptr<Graph> quantized = BuildDeployGraph(float_graph, layers, record, deploy);
  CompareOptions compare;
  compare.compile_options = options;
  Evaluation evaluation;
  evaluation.comparison = CompareWithReference(reference, *quantized, inputs, compare, set);
  // Rows follow execution order; a layer's last row is its float output.
  for (const LayerComparison& row : evaluation.comparison.layers) {
    if (!row.quant_layer.empty()) evaluation.layer_cosine[row.quant_layer] = row.metrics.cosine;
  }
  evaluation.output_cosine = evaluation.comparison.output_cosine;
  return evaluation;
}

FallbackOutcome RunFallbackLadder(const Graph& float_graph, std::vector<QuantLayer>& layers, QuantRecord& record,
                                  const ActivationCache& cache, const FallbackTargets& targets,
                                  const std::vector<Tensor>& inputs, const Options& options,
                                  const std::function<void(size_t, size_t)>& progress) {
  std::vector<QuantLayer*> candidates;
  for (QuantLayer& layer : layers) {
    if (layer.quantize) candidates.push_back(&layer);
  }
  std::unordered_map<std::string, Rung> rungs;
  std::unordered_map<std::string, LayerQuantConfig> originals;
  for (const QuantLayer* layer : candidates) originals.emplace(layer->name, layer->config);

  // The float side of every comparison is the same: captured once.
  const CapturedReference reference(float_graph, inputs, options);
  FallbackOutcome outcome;
  size_t evaluations = 0;
  // Two rounds of rungs, then the ranking and a binary search over at most every layer.
  size_t planned = 3 + static_cast<size_t>(std::ceil(std::log2(double(candidates.size()) + 1)));
  // The search compares cosines only; the outcome's comparison, which the
  // report and compare.csv show, gets every metric once, at the end.
  auto evaluate = [&] {
    outcome.evaluation =
        EvaluateQuantization(float_graph, reference, layers, record, inputs, options, MetricSet::kCosineOnly);
    if (progress) progress(std::min(++evaluations, planned), planned);
  };
  auto finish = [&] {
    outcome.evaluation = EvaluateQuantization(float_graph, reference, layers, record, inputs, options);
    return std::move(outcome);
  };
  auto cosine_of = [&](const QuantLayer* layer) {
    auto found = outcome.evaluation.layer_cosine.find(layer->name);
    return found == outcome.evaluation.layer_cosine.end() ? std::nan("") : found->second;
  };
  evaluate();

  // 1. The cheap rungs, every failing layer at once, twice: the other
  //    calibrator, then INT16 (for an INT16 layer: INT8, then the other
  //    calibrator at INT8). One evaluation measures a whole round.
  for (int round = 0; round < 2; ++round) {
    std::vector<FallbackStep> climbed;
    for (QuantLayer* layer : candidates) {
      if (!Misses(cosine_of(layer), targets.layer_cosine)) continue;
      const std::string from = DescribeSetting(*layer);
      const Rung reached =
          Climb(*layer, rungs[layer->name], originals.at(layer->name), HasInt16Form(float_graph, *layer));
      if (reached == Rung::kFloat) continue;
      FallbackStep step;
      step.layer = layer->name;
      step.from = from;
      step.layer_cosine_before = cosine_of(layer);
      rungs[layer->name] = reached;
      step.to = DescribeSetting(*layer);
      record[layer->name] = CalibrateLayer(float_graph, *layer, cache);
      climbed.push_back(step);
    }
    if (climbed.empty()) break;
    evaluate();
    for (FallbackStep& step : climbed) {
      step.layer_cosine_after = outcome.evaluation.layer_cosine.count(step.layer) != 0
                                    ? outcome.evaluation.layer_cosine.at(step.layer)
                                    : std::nan("");
      step.output_cosine_after = outcome.evaluation.output_cosine;
      outcome.steps.push_back(step);
    }
  }
  if (!Misses(outcome.evaluation.output_cosine, targets.output_cosine)) return finish();

  // 2. The smallest set of the most sensitive layers whose return to float
  //    lifts the output to its target: the layers ranked once, then a binary
  //    search over how many of the top go float, assuming more float never
  //    hurts (AMCT's accuracy-based search does the same). The ranking is
  //    measured: the output cosine with each layer quantized alone, which
  //    sees how its error grows or fades downstream (a network's last layer
  //    spoils the output that a proxy rates mild). Past kMeasuredLayers, the
  //    rest keep the order of the proxy (layer_sensitivity.h), which also
  //    picks the layers that are measured.
  // Each layer with what the steps report of it, taken before the search moves it.
  struct Ranked {
    QuantLayer* layer;
    double proxy;
    double alone = std::nan("");  // the output cosine with only this layer quantized; NaN: not measured
    std::string setting;
    double cosine;
  };
  std::vector<Ranked> ranked;
  for (QuantLayer* layer : candidates) {
    ranked.push_back({layer, LayerSensitivity(float_graph, *layer, record.at(layer->name), cache), std::nan(""),
                      DescribeSetting(*layer), cosine_of(layer)});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.proxy > b.proxy; });
  const size_t measured = std::min(ranked.size(), kMeasuredLayers);
  planned += measured;
  for (size_t i = 0; i < measured; ++i) {
    for (Ranked& other : ranked) other.layer->quantize = &other == &ranked[i];
    evaluate();
    ranked[i].alone = outcome.evaluation.output_cosine;
  }
  std::stable_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(measured),
                   [](const Ranked& a, const Ranked& b) { return Worse(a.alone, b.alone); });
  auto set_float_count = [&](size_t count) {
    for (size_t i = 0; i < ranked.size(); ++i) ranked[i].layer->quantize = i >= count;
  };
  size_t failing = 0, passing = ranked.size();  // float counts known to miss and to meet the target
  Evaluation passing_evaluation;
  bool have_passing = false;
  while (passing - failing > 1) {
    const size_t middle = failing + (passing - failing) / 2;
    set_float_count(middle);
    evaluate();
    if (Misses(outcome.evaluation.output_cosine, targets.output_cosine)) {
      failing = middle;
    } else {
      passing = middle;
      passing_evaluation = outcome.evaluation;
      have_passing = true;
    }
  }
  set_float_count(passing);
  if (have_passing) {
    outcome.evaluation = std::move(passing_evaluation);
  } else {
    evaluate();  // every ranked layer in float
  }

  // 3. Give back: the search assumed more float never hurts, but errors also
  //    cancel. Each layer it sent to float, the least sensitive first, goes
  //    back to INT8 when the output still reaches the target with it.
  size_t floats = passing;
  if (!Misses(outcome.evaluation.output_cosine, targets.output_cosine)) {
    planned += passing;
    Evaluation kept = outcome.evaluation;
    for (size_t i = passing; i-- > 0;) {
      ranked[i].layer->quantize = true;
      evaluate();
      if (Misses(outcome.evaluation.output_cosine, targets.output_cosine)) {
        ranked[i].layer->quantize = false;
      } else {
        kept = outcome.evaluation;
        --floats;
      }
    }
    outcome.evaluation = std::move(kept);
  }
  for (size_t i = 0; i < passing; ++i) {
    QuantLayer& layer = *ranked[i].layer;
    if (layer.quantize) continue;  // given back
    const std::string why = std::isnan(ranked[i].alone)
                                ? fmt::format("its noise proxy {:.3g}", ranked[i].proxy)
                                : fmt::format("quantized alone, it gives the output cosine {:.6f}", ranked[i].alone);
    layer.reason = fmt::format("fallback: {} of {} layers go float so that the output cosine reaches {}: this one "
                               "is among the {} most sensitive ({})",
                               floats, ranked.size(), targets.output_cosine, passing, why);
    record.erase(layer.name);
    FallbackStep step;
    step.layer = layer.name;
    step.from = ranked[i].setting;
    step.to = "float";
    step.layer_cosine_before = ranked[i].cosine;
    step.layer_cosine_after = std::nan("");
    step.output_cosine_after = outcome.evaluation.output_cosine;
    outcome.steps.push_back(step);
  }
  return finish();
}

}  // namespace ge::quant
