#include "quant/auto_fallback.h"

#include <cmath>
#include <unordered_map>

#include <fmt/core.h>

#include "quant/deploy_rewrite.h"

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

// INT16 activations need an int16 kernel of the layer's op.
bool HasInt16Form(const QuantLayer& layer) {
  if (layer.kind == QuantLayerKind::kWeighted) return layer.op_type == "Conv2D" || layer.op_type == "MatMulV2";
  if (layer.kind == QuantLayerKind::kTensorOnly) return layer.op_type == "MaxPool" || layer.op_type == "MaxPoolV3";
  return false;
}

void SetDstType(LayerQuantConfig& config, QuantDType type) { config.ifmr.dst_type = config.hfmg.dst_type = type; }

// Moves the layer to the next rung that applies; returns the rung reached.
// `why` says what sent it up, for the reason of a layer left in float.
Rung Climb(QuantLayer& layer, Rung rung, const LayerQuantConfig& original, const std::string& why) {
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
  if (rung < Rung::kInt16 && !int16_start && HasInt16Form(layer)) {
    layer.config = original;
    SetDstType(layer.config, QuantDType::kInt16);
    return Rung::kInt16;
  }
  layer.quantize = false;
  layer.reason = "fallback: " + why;
  return Rung::kFloat;
}

bool Misses(double cosine, double threshold) { return !std::isnan(cosine) && cosine < threshold; }

}  // namespace

Evaluation EvaluateQuantization(const Graph& float_graph, const CapturedReference& reference,
                                const std::vector<QuantLayer>& layers, const QuantRecord& record,
                                const std::vector<Tensor>& inputs, const Options& options) {
  DeployOptions deploy;
  deploy.requant_fusion = false;  // every quantized layer keeps a float output to compare
  std::unique_ptr<Graph> quantized = BuildDeployGraph(float_graph, layers, record, deploy);
  CompareOptions compare;
  compare.compile_options = options;
  Evaluation evaluation;
  evaluation.comparison = CompareWithReference(reference, *quantized, inputs, compare);
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
  std::unordered_map<std::string, size_t> order;
  for (const Node* node : float_graph.TopologicalOrder()) order.emplace(node->name(), order.size());
  std::vector<QuantLayer*> candidates;
  for (QuantLayer& layer : layers) {
    if (layer.quantize) candidates.push_back(&layer);
  }
  std::sort(candidates.begin(), candidates.end(),
            [&](const QuantLayer* a, const QuantLayer* b) { return order[a->name] < order[b->name]; });
  std::unordered_map<std::string, Rung> rungs;
  std::unordered_map<std::string, LayerQuantConfig> originals;
  for (const QuantLayer* layer : candidates) originals.emplace(layer->name, layer->config);

  // The float side of every comparison is the same: captured once.
  const CapturedReference reference(float_graph, inputs, options);
  FallbackOutcome outcome;
  outcome.evaluation = EvaluateQuantization(float_graph, reference, layers, record, inputs, options);
  // Each quantized layer climbs at most three rungs.
  const size_t max_steps = 3 * candidates.size();
  while (outcome.steps.size() < max_steps) {
    auto cosine_of = [&](const QuantLayer* layer) {
      auto found = outcome.evaluation.layer_cosine.find(layer->name);
      return found == outcome.evaluation.layer_cosine.end() ? std::nan("") : found->second;
    };
    QuantLayer* pick = nullptr;
    for (QuantLayer* layer : candidates) {
      if (layer->quantize && Misses(cosine_of(layer), targets.layer_cosine)) {
        pick = layer;  // the earliest failing layer: its error reaches everything after it
        break;
      }
    }
    std::string why;
    if (pick != nullptr) {
      why = fmt::format("layer cosine {:.4f} below {}", cosine_of(pick), targets.layer_cosine);
    } else if (Misses(outcome.evaluation.output_cosine, targets.output_cosine)) {
      for (QuantLayer* layer : candidates) {  // every layer passes but the output does not: the weakest climbs
        if (layer->quantize && (pick == nullptr || cosine_of(layer) < cosine_of(pick))) pick = layer;
      }
      if (pick != nullptr) {
        why = fmt::format("output cosine {:.4f} below {} with every layer passing; this layer was the weakest "
                          "(cosine {:.4f})",
                          outcome.evaluation.output_cosine, targets.output_cosine, cosine_of(pick));
      }
    }
    if (pick == nullptr) break;
    FallbackStep step;
    step.layer = pick->name;
    step.from = DescribeSetting(*pick);
    step.layer_cosine_before = cosine_of(pick);
    rungs[pick->name] = Climb(*pick, rungs[pick->name], originals.at(pick->name), why);
    step.to = DescribeSetting(*pick);
    if (pick->quantize) {
      record[pick->name] = CalibrateLayer(float_graph, *pick, cache);
    } else {
      record.erase(pick->name);
    }
    outcome.evaluation = EvaluateQuantization(float_graph, reference, layers, record, inputs, options);
    step.layer_cosine_after = pick->quantize ? cosine_of(pick) : std::nan("");  // float: no quantized output
    step.output_cosine_after = outcome.evaluation.output_cosine;
    outcome.steps.push_back(step);
    if (progress) progress(outcome.steps.size(), max_steps);
  }
  return outcome;
}

}  // namespace ge::quant
