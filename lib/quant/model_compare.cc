// ge::CompareModels and ge::ComparisonCsv (include/ge/compare.h), and the
// comparison against a reference captured once (model_compare.h).
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include <fmt/core.h>

#include "ge/compare.h"
#include "ge/error.h"
#include "graph/nhwc_values.h"
#include "quant/activation_capture.h"
#include "quant/model_compare.h"
#include "quant/compare_metrics.h"
#include "quant/quant_graph_edit.h"

namespace ge {
namespace {

bool SameShape(const Shape& a, const Shape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return true;
  if (a.rank() != b.rank()) return false;
  for (size_t i = 0; i < a.rank(); ++i) {
    if (a.dim(i) != b.dim(i) && a.dim(i) != Shape::kUnknownDim && b.dim(i) != Shape::kUnknownDim) return false;
  }
  return true;
}

void CheckSameInputs(const Graph& reference, const Graph& model, size_t given) {
  const std::vector<Value*> ref_inputs = reference.inputs();
  const std::vector<Value*> model_inputs = model.inputs();
  if (ref_inputs.size() != model_inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot compare: the reference '{}' has {} inputs but the model '{}' has {}",
                            reference.name(), ref_inputs.size(), model.name(), model_inputs.size()));
  }
  for (size_t i = 0; i < ref_inputs.size(); ++i) {
    const Value& ref = *ref_inputs[i];
    const Value& mine = *model_inputs[i];
    if (ref.dtype() != mine.dtype() || !SameShape(ref.shape(), mine.shape())) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("cannot compare: input {} is '{}' {}{} in the reference but '{}' {}{} in the model", i,
                              ref.name(), DataTypeName(ref.dtype()), ref.shape().ToString(), mine.name(),
                              DataTypeName(mine.dtype()), mine.shape().ToString()));
    }
  }
  if (given != ref_inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot compare: {} input tensors given, the models take {}", given, ref_inputs.size()));
  }
}

// `nhwc` is the 4-D `nchw` shape with its channels moved last.
bool IsNhwcOf(const Shape& nhwc, const Shape& nchw) {
  const auto is_4d = [](const Shape& shape) { return !shape.unknown_rank() && shape.rank() == 4; };
  return is_4d(nhwc) && is_4d(nchw) && nhwc == PermutedShape(nchw, kNchwToNhwc);
}

bool BelowThreshold(double cosine, double threshold) { return !(cosine >= threshold); }

std::string QuantLayerOf(const Node& node) {
  const AttrValue* attr = node.attrs().Find(quant::kQuantLayerAttr);
  const std::string* name = attr != nullptr ? std::get_if<std::string>(attr) : nullptr;
  return name != nullptr ? *name : std::string();
}

// The metrics, or the reason there are none (a dtype that cannot be compared).
void Measure(const Tensor& mine, const Tensor& truth, quant::MetricSet set, CompareMetrics& metrics,
             std::string& fail_reason) {
  try {
    metrics = quant::CompareTensors(mine, truth, set);
  } catch (const Error& error) {
    if (error.code() != ErrorCode::kUnsupported) throw;
    metrics = quant::UndefinedMetrics("");
    fail_reason = error.what();
  }
}

std::vector<LayerComparison> CompareLayers(const quant::ActivationCapture& reference,
                                           const std::vector<Tensor>& reference_values,
                                           const quant::ActivationCapture& model,
                                           const std::vector<Tensor>& model_values, double threshold,
                                           quant::MetricSet set) {
  std::unordered_map<std::string, size_t> reference_index;
  for (size_t i = 0; i < reference.values().size(); ++i) reference_index.emplace(reference.values()[i].name, i);
  std::unordered_map<const Node*, size_t> sequence;
  for (const Node* node : model.graph().TopologicalOrder()) sequence.emplace(node, sequence.size());

  std::vector<LayerComparison> layers;
  for (size_t i = 0; i < model.values().size(); ++i) {
    const Value& value = *model.graph_values()[i];
    const Node& producer = *value.producer();
    // Graph inputs are fed the same tensors on both sides; nothing to learn there.
    if (producer.op_type() == "Data") continue;
    Tensor mine = model_values[i];
    auto found = reference_index.find(value.name());
    // A compiled model's NHWC regions renamed their values: compare them in NCHW.
    const std::optional<std::string> nchw_name = NchwNameOf(value.name());
    if (found == reference_index.end() && nchw_name) {
      found = reference_index.find(*nchw_name);
      if (found == reference_index.end() || !IsNhwcOf(mine.shape(), reference_values[found->second].shape())) continue;
      mine = PermutedTensor(mine, kNhwcToNchw);
    }
    if (found == reference_index.end()) continue;
    const Tensor& truth = reference_values[found->second];
    const Value& ref_value = *reference.graph_values()[found->second];
    if (mine.num_elements() != truth.num_elements() || ref_value.producer()->op_type() == "Data") continue;
    LayerComparison row;
    row.index = layers.size();
    row.op_sequence = sequence.at(&producer);
    row.op_name = producer.name();
    row.op_type = producer.op_type();
    row.value_name = value.name();
    row.dtype = mine.dtype();
    row.ground_truth = ref_value.producer()->name();
    row.ground_truth_dtype = truth.dtype();
    row.tensor_index = static_cast<size_t>(value.producer_output());
    row.shape = mine.shape();
    Measure(mine, truth, set, row.metrics, row.fail_reason);
    row.below_threshold = BelowThreshold(row.metrics.cosine, threshold);
    row.quant_layer = QuantLayerOf(producer);
    layers.push_back(std::move(row));
  }
  return layers;
}

std::vector<OutputComparison> CompareOutputs(const quant::ActivationCapture& reference,
                                             const std::vector<Tensor>& reference_outputs,
                                             const quant::ActivationCapture& model,
                                             const std::vector<Tensor>& model_outputs, double threshold,
                                             quant::MetricSet set) {
  std::vector<OutputComparison> outputs;
  for (size_t i = 0; i < model_outputs.size(); ++i) {
    OutputComparison row;
    row.index = i;
    row.name = model.outputs()[i].name;
    row.ground_truth = reference.outputs()[i].name;
    row.dtype = model_outputs[i].dtype();
    row.shape = model_outputs[i].shape();
    if (model_outputs[i].num_elements() != reference_outputs[i].num_elements()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("cannot compare output {}: '{}' is {} in the model but the reference's '{}' is {}", i,
                              row.name, row.shape.ToString(), row.ground_truth,
                              reference_outputs[i].shape().ToString()));
    }
    Measure(model_outputs[i], reference_outputs[i], set, row.metrics, row.fail_reason);
    row.below_threshold = BelowThreshold(row.metrics.cosine, threshold);
    outputs.push_back(std::move(row));
  }
  return outputs;
}

// The lowest cosine; NaN wins, since it means an output could not be compared.
double LowestCosine(const std::vector<OutputComparison>& outputs) {
  double lowest = 1.0;
  for (const OutputComparison& output : outputs) {
    if (std::isnan(output.metrics.cosine)) return output.metrics.cosine;
    lowest = std::min(lowest, output.metrics.cosine);
  }
  return lowest;
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

namespace quant {

CapturedReference::CapturedReference(const Graph& reference, const std::vector<Tensor>& inputs,
                                     const Options& options)
    : capture(reference, options), run(capture.RunWithOutputs(inputs)) {}

ModelComparison CompareWithReference(const CapturedReference& reference, const Graph& model,
                                     const std::vector<Tensor>& inputs, const CompareOptions& options,
                                     MetricSet set) {
  const Graph& reference_graph = reference.capture.graph();
  CheckSameInputs(reference_graph, model, inputs.size());
  const ActivationCapture model_capture(model, options.compile_options);
  if (reference.capture.outputs().size() != model_capture.outputs().size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot compare: the reference '{}' has {} outputs but the model '{}' has {}",
                            reference_graph.name(), reference.capture.outputs().size(), model.name(),
                            model_capture.outputs().size()));
  }
  const ActivationCapture::Captured mine = model_capture.RunWithOutputs(inputs);

  ModelComparison comparison;
  comparison.cosine_threshold = options.cosine_threshold;
  comparison.layers =
      CompareLayers(reference.capture, reference.run.values, model_capture, mine.values, options.cosine_threshold, set);
  comparison.outputs = CompareOutputs(reference.capture, reference.run.outputs, model_capture, mine.outputs,
                                      options.cosine_threshold, set);
  comparison.output_cosine = LowestCosine(comparison.outputs);
  comparison.layers_below_threshold = static_cast<size_t>(std::count_if(
      comparison.layers.begin(), comparison.layers.end(), [](const LayerComparison& l) { return l.below_threshold; }));
  return comparison;
}

}  // namespace quant

ModelComparison CompareModels(const Graph& reference, const Graph& model, const std::vector<Tensor>& inputs,
                              const CompareOptions& options) {
  CheckSameInputs(reference, model, inputs.size());  // before running anything
  const quant::CapturedReference captured(reference, inputs, options.compile_options);
  return quant::CompareWithReference(captured, model, inputs, options);
}

std::string ComparisonCsv(const ModelComparison& comparison) {
  std::string csv =
      "Index,OpSequence,OpType,NPUDump,DataType,Address,GroundTruth,DataType,TensorIndex,Shape,CosineSimilarity,"
      "MaxAbsoluteError,AccumulatedRelativeError,RelativeEuclideanDistance,KullbackLeiblerDivergence,"
      "StandardDeviation,MeanAbsoluteError,RootMeanSquareError,MaxRelativeError,MeanRelativeError,"
      "CompareFailReason\n";
  using quant::MetricText;
  for (const LayerComparison& row : comparison.layers) {
    const CompareMetrics& m = row.metrics;
    const std::vector<std::string> fields = {
        std::to_string(row.index), std::to_string(row.op_sequence), row.op_type, row.op_name,
        std::string(DataTypeName(row.dtype)), "NaN", row.ground_truth, std::string(DataTypeName(row.ground_truth_dtype)),
        std::to_string(row.tensor_index), row.shape.ToString(), MetricText(m.cosine), MetricText(m.max_abs_error),
        MetricText(m.accumulated_relative_error), MetricText(m.relative_euclidean_distance),
        MetricText(m.kl_divergence), quant::StandardDeviationText(m), MetricText(m.mean_absolute_error),
        MetricText(m.root_mean_square_error), MetricText(m.max_relative_error), MetricText(m.mean_relative_error),
        row.fail_reason.empty() ? m.note : row.fail_reason};
    for (size_t i = 0; i < fields.size(); ++i) csv += (i == 0 ? "" : ",") + CsvField(fields[i]);
    csv += "\n";
  }
  return csv;
}

}  // namespace ge
