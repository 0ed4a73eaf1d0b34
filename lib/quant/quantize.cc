// ge::Quantize: prepare the float graph, plan the layers, calibrate (or read
// the record), optionally climb the fallback ladder, and build the deploy
// graph.
#include "ge/quantize.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/cpu_paths.h"
#include "ge/error.h"
#include "graph/impl_mode.h"
#include "passes/impl_mode_ini.h"
#include "quant/auto_fallback.h"
#include "quant/calibration.h"
#include "quant/cross_layer_equalization.h"
#include "quant/deploy_rewrite.h"
#include "quant/device_independent_compile.h"
#include "quant/layer_support.h"
#include "quant/product_rules.h"
#include "quant/smooth_quant.h"
#include "quant/quant_config.h"
#include "quant/quant_record.h"

namespace ge {
namespace {

using namespace quant;

// The float graph as the runtime optimizes it (BatchNorm folded into
// convolutions, constants folded, shapes inferred): quantization works on the
// layers that will actually run, still in the device-independent form.
std::unique_ptr<Graph> PrepareFloatGraph(const Graph& graph, const Options& options) {
  return CompileDeviceIndependent(graph.Clone(), options)->graph().Clone();
}

void CheckLayerNames(const QuantConfig& config, const Graph& graph, const std::string& path) {
  const std::vector<std::string> unknown =
      config.UnknownLayerNames([&](const std::string& name) { return graph.FindNode(name) != nullptr; });
  if (unknown.empty()) return;
  std::vector<std::string> some;
  for (const Node* node : graph.TopologicalOrder()) {
    if (node->op_type() != "Const" && node->op_type() != "Data" && some.size() < 8) some.push_back(node->name());
  }
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("{}: no layer named {} in the model (after BatchNorm folding); layers include {}",
                          path.empty() ? "config" : path, fmt::join(unknown, ", "), fmt::join(some, ", ")));
}

std::vector<std::vector<Tensor>> CalibrationBatches(const QuantizeOptions& options, const QuantConfig& config) {
  const size_t wanted = config.batch_num();
  if (options.calibration_batches.size() < wanted) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("calibration: batch_num is {} but {} batch(es) were given", wanted,
                            options.calibration_batches.size()));
  }
  return {options.calibration_batches.begin(), options.calibration_batches.begin() + wanted};
}

// The config that replays the outcome: the layers the ladder moved get an
// override_layer_configs entry, the ones it left in float a skip_layers entry.
std::string FinalConfig(QuantConfig config, const std::vector<QuantLayer>& layers,
                        const std::vector<FallbackStep>& steps) {
  std::set<std::string> moved;
  for (const FallbackStep& step : steps) moved.insert(step.layer);
  for (const QuantLayer& layer : layers) {
    if (moved.count(layer.name) == 0) continue;
    if (layer.quantize) {
      config.SetLayerOverride(layer.name, layer.config);
    } else {
      config.AddSkipLayer(layer.name);
    }
  }
  return "# The config that replays this quantization (ge quantize --config).\n" + config.ToText();
}

// The layers the ladder left in float, for keep_dtype (all of them) and for
// op_precision_mode (those whose op offers high_precision, so that the file
// passes ge.exec.op_precision_mode's check).
void FillLists(const std::vector<QuantLayer>& layers, const std::vector<FallbackStep>& steps, QuantizeResult& result) {
  std::set<std::string> fell_back;
  for (const FallbackStep& step : steps) {
    if (step.to == "float") fell_back.insert(step.layer);
  }
  if (fell_back.empty()) return;
  result.op_precision_ini = "# Layers the quantization fallback left in float: compute them precisely.\n[ByNodeName]\n";
  const passes::OpImplModes& modes = passes::AllOpsImplModes();
  for (const QuantLayer& layer : layers) {
    if (fell_back.count(layer.name) == 0) continue;
    result.keep_dtype += layer.name + "\n";
    auto offered = modes.find(layer.op_type);
    if (offered != modes.end() &&
        std::find(offered->second.begin(), offered->second.end(), kHighPrecision) != offered->second.end()) {
      result.op_precision_ini += fmt::format("{}={}\n", layer.name, kHighPrecision);
    }
  }
}

std::string EqualizationNote(const EqualizedPair& pair) {
  const auto [low, high] = std::minmax_element(pair.scales.begin(), pair.scales.end());
  std::string note = fmt::format("cross-layer equalization with '{}': {} output channels divided by scales from "
                                 "{:.3g} to {:.3g}",
                                 pair.second, pair.scales.size(), *low, *high);
  if (pair.held_by_clip > 0) note += fmt::format(" ({} bounded by the clip between them)", pair.held_by_clip);
  return note;
}

}  // namespace

QuantizeResult Quantize(const Graph& float_graph, const QuantizeOptions& options) {
  QuantConfig config = options.config_path.empty() ? QuantConfig() : LoadQuantConfig(options.config_path);
  if (!Int8UsesVnni(options.target_isa, "target ISA")) config.SetDefaultConvWeightBits(7);
  const Product product = ProductFromSocVersion(options.soc_version);
  std::unique_ptr<Graph> prepared = PrepareFloatGraph(float_graph, options.compile_options);
  CheckLayerNames(config, *prepared, options.config_path);
  std::vector<QuantLayer> layers = PlanQuantLayers(*prepared, config, product);

  const bool calibrate = options.record_in.empty();
  std::vector<std::vector<Tensor>> batches;
  if (calibrate || options.target_output_cosine) batches = CalibrationBatches(options, config);
  auto report = [&](const std::string& stage) {
    return [&options, stage](size_t done, size_t total) {
      if (options.progress) options.progress(stage, done, total);
    };
  };
  // Only the fallback needs activations when the factors come from a record.
  std::vector<std::string> wanted = ActivationValues(layers);
  if (!calibrate && !options.target_output_cosine) wanted.clear();
  ActivationCache cache(*prepared, wanted, batches, options.compile_options, report("calibrate"));
  QuantRecord record = calibrate ? QuantRecord() : ReadQuantRecord(options.record_in);
  // Cross-layer equalization and SmoothQuant rewrite the float graph before
  // anything is calibrated on it (replaying: as the record says).
  const QuantRecord* recorded = calibrate ? nullptr : &record;
  const std::map<std::string, EqualizedPair> equalized = EqualizeConvPairs(*prepared, layers, cache, recorded);
  const std::map<std::string, std::vector<float>> smoothed = SmoothProducts(*prepared, layers, cache, recorded);
  if (calibrate) record = CalibrateLayers(*prepared, layers, cache);

  QuantizeResult result;
  std::optional<Evaluation> evaluation;
  if (options.target_output_cosine) {
    FallbackTargets targets{options.layer_cosine, *options.target_output_cosine};
    FallbackOutcome outcome = RunFallbackLadder(*prepared, layers, record, cache, targets, batches.front(),
                                                options.compile_options, report("fallback"));
    result.fallback = std::move(outcome.steps);
    evaluation = std::move(outcome.evaluation);
  } else if (!batches.empty()) {
    const CapturedReference reference(*prepared, batches.front(), options.compile_options);
    evaluation =
        EvaluateQuantization(*prepared, reference, layers, record, batches.front(), options.compile_options);
  }
  // After the ladder, which recalibrates layers and drops the float ones' entries.
  for (const auto& [name, pair] : equalized) record[name].equalization_scale = pair.scales;
  for (const auto& [name, scales] : smoothed) record[name].smooth_scale = scales;
  std::map<std::string, std::string> equalized_after;  // second layer -> first
  for (const auto& [name, pair] : equalized) equalized_after[pair.second] = name;

  DeployOptions deploy;
  deploy.requant_fusion = options.requant_fusion;
  result.graph = BuildDeployGraph(*prepared, layers, record, deploy);

  for (const QuantLayer& layer : layers) {
    QuantizedLayer row{layer.name,      layer.op_type, layer.framework, layer.framework_op, layer.rule,
                       layer.Decision(), layer.notes,  "",              std::nan("")};
    if (layer.quantize && layer.kind != QuantLayerKind::kWeightOnly) {
      row.activation_algo = ActivationAlgoName(layer.config.activation_algo);
    }
    if (evaluation && evaluation->layer_cosine.count(layer.name) != 0) row.cosine = evaluation->layer_cosine[layer.name];
    if (const auto pair = equalized.find(layer.name); pair != equalized.end()) {
      row.notes.push_back(EqualizationNote(pair->second));
    }
    if (const auto first = equalized_after.find(layer.name); first != equalized_after.end()) {
      row.notes.push_back(fmt::format("cross-layer equalization: its input channels take the scales of '{}'",
                                      first->second));
    }
    if (const auto found = record.find(layer.name); found != record.end()) {
      const LayerRecord& factors = found->second;
      if (!factors.smooth_scale.empty()) {
        row.notes.push_back(fmt::format("SmoothQuant: {} input channels rescaled (alpha {})",
                                        factors.smooth_scale.size(), layer.config.smooth_quant_alpha));
      }
      if (!factors.bias_correction.empty()) {
        float largest = 0;
        for (float shift : factors.bias_correction) largest = std::max(largest, std::fabs(shift));
        row.notes.push_back(fmt::format("bias correction: the mean output shift of quantization is removed "
                                        "(largest |shift| {:.3g})",
                                        largest));
      }
    }
    result.layers.push_back(std::move(row));
  }
  if (evaluation) {
    result.output_cosine = evaluation->output_cosine;
    result.compare_csv = ComparisonCsv(evaluation->comparison);
  }
  const bool caffe = std::any_of(layers.begin(), layers.end(), [](const QuantLayer& l) { return l.framework == "Caffe"; });
  if (caffe && !product.MaintainsCaffe()) {
    result.warnings.push_back(fmt::format("Caffe is no longer maintained on {} (--soc_version {}): the seed does not "
                                          "promise the quantized Caffe model works there",
                                          product.name, product.soc_version));
  }
  result.record = QuantRecordToText(record);
  if (!options.record_out.empty()) WriteQuantRecord(record, options.record_out);
  result.final_config = FinalConfig(config, layers, result.fallback);
  FillLists(layers, result.fallback, result);
  return result;
}

}  // namespace ge
