// ge compare REFERENCE MODEL: runs two models on the same inputs and compares
// them value by value with msaccucmp's metrics (docs/compare.md).
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include <fmt/core.h>

#include "commands.h"
#include "file_writer.h"
#include "ge/compare.h"
#include "ge/onnx_importer.h"
#include "input_tensors.h"
#include "json_writer.h"
#include "model_loader.h"
#include "options.h"
#include "progress.h"
#include "report.h"

namespace ge::cli {
namespace {

constexpr uint32_t kDefaultSeed = 42;
constexpr double kDefaultThreshold = 0.99;

// The graph of an .onnx file (imported) or of a .gem file (the optimized
// graph the loaded model owns).
struct LoadedGraph {
  std::shared_ptr<const CompiledModel> gem;
  std::unique_ptr<Graph> imported;
  const Graph& graph() const { return gem ? gem->graph() : *imported; }
};

LoadedGraph LoadGraph(const std::string& path, Progress& progress) {
  LoadedGraph loaded;
  if (DetectModelFormat(path) == ModelFormat::kGem) {
    progress.Show(fmt::format("loading {} ...", path));
    loaded.gem = CompiledModel::Load(path);
  } else {
    progress.Show(fmt::format("importing {} ...", path));
    loaded.imported = ImportOnnxFile(path);
  }
  return loaded;
}

std::vector<TensorInfo> InputInfos(const Graph& graph) {
  std::vector<TensorInfo> infos;
  for (const Value* input : graph.inputs()) infos.push_back({input->name(), input->dtype(), input->shape()});
  return infos;
}

double ParseThreshold(const ParsedArgs& args) {
  if (!args.Has("threshold")) return kDefaultThreshold;
  const std::string text = args.Value("threshold");
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !(value >= -1 && value <= 1)) {
    throw UsageError(fmt::format("--threshold expects a cosine in [-1, 1], got '{}'", text));
  }
  return value;
}

uint32_t ParseSeed(const ParsedArgs& args) {
  const int64_t seed = args.IntValue("seed", kDefaultSeed, 0);
  if (seed > std::numeric_limits<uint32_t>::max()) {
    throw UsageError(fmt::format("--seed expects an integer in [0, {}], got {}", std::numeric_limits<uint32_t>::max(),
                                 seed));
  }
  return static_cast<uint32_t>(seed);
}

// Six significant digits; NaN spelled as in the CSV.
std::string Short(double value) { return std::isnan(value) ? "NaN" : fmt::format("{:.6g}", value); }

void WriteMetrics(JsonWriter& json, const CompareMetrics& m) {
  json.Key("cosine").Number(m.cosine);
  json.Key("max_abs_error").Number(m.max_abs_error);
  json.Key("accumulated_relative_error").Number(m.accumulated_relative_error);
  json.Key("relative_euclidean_distance").Number(m.relative_euclidean_distance);
  json.Key("kl_divergence").Number(m.kl_divergence);
  json.Key("mean").Number(m.mean_mine);
  json.Key("std").Number(m.std_mine);
  json.Key("ground_truth_mean").Number(m.mean_truth);
  json.Key("ground_truth_std").Number(m.std_truth);
  json.Key("mean_absolute_error").Number(m.mean_absolute_error);
  json.Key("root_mean_square_error").Number(m.root_mean_square_error);
  json.Key("max_relative_error").Number(m.max_relative_error);
  json.Key("mean_relative_error").Number(m.mean_relative_error);
  json.Key("note").String(m.note);
}

void PrintJson(const std::string& reference, const std::string& model, const ModelComparison& comparison,
               const std::string& csv_path) {
  JsonWriter json;
  json.BeginObject();
  json.Key("reference").String(reference);
  json.Key("model").String(model);
  json.Key("threshold").Number(comparison.cosine_threshold);
  json.Key("layers").BeginArray();
  for (const LayerComparison& layer : comparison.layers) {
    json.BeginObject();
    json.Key("index").Int(static_cast<int64_t>(layer.index));
    json.Key("op_sequence").Int(static_cast<int64_t>(layer.op_sequence));
    json.Key("op_name").String(layer.op_name);
    json.Key("op_type").String(layer.op_type);
    json.Key("value").String(layer.value_name);
    json.Key("dtype").String(DataTypeName(layer.dtype));
    json.Key("ground_truth").String(layer.ground_truth);
    json.Key("ground_truth_dtype").String(DataTypeName(layer.ground_truth_dtype));
    json.Key("tensor_index").Int(static_cast<int64_t>(layer.tensor_index));
    json.Key("shape");
    WriteShape(json, layer.shape);
    WriteMetrics(json, layer.metrics);
    json.Key("below_threshold").Bool(layer.below_threshold);
    json.Key("fail_reason").String(layer.fail_reason);
    json.Key("quant_layer").String(layer.quant_layer);
    json.EndObject();
  }
  json.EndArray();
  json.Key("outputs").BeginArray();
  for (const OutputComparison& output : comparison.outputs) {
    json.BeginObject();
    json.Key("index").Int(static_cast<int64_t>(output.index));
    json.Key("name").String(output.name);
    json.Key("ground_truth").String(output.ground_truth);
    json.Key("dtype").String(DataTypeName(output.dtype));
    json.Key("shape");
    WriteShape(json, output.shape);
    WriteMetrics(json, output.metrics);
    json.Key("below_threshold").Bool(output.below_threshold);
    json.Key("fail_reason").String(output.fail_reason);
    json.EndObject();
  }
  json.EndArray();
  json.Key("layers_compared").Int(static_cast<int64_t>(comparison.layers.size()));
  json.Key("layers_below_threshold").Int(static_cast<int64_t>(comparison.layers_below_threshold));
  json.Key("output_cosine").Number(comparison.output_cosine);
  json.Key("csv");
  csv_path.empty() ? json.Null() : json.String(csv_path);
  json.EndObject();
  std::printf("%s\n", json.str().c_str());
}

void PrintHuman(const ModelComparison& comparison, const std::string& csv_path) {
  std::vector<std::vector<std::string>> rows = {{"index", "op", "type", "cosine", "max abs err", "RED", ""}};
  for (const LayerComparison& layer : comparison.layers) {
    const CompareMetrics& m = layer.metrics;
    rows.push_back({std::to_string(layer.index), layer.op_name, layer.op_type, Short(m.cosine),
                    Short(m.max_abs_error), Short(m.relative_euclidean_distance), layer.below_threshold ? "<" : ""});
  }
  std::printf("%s", FormatTable(rows).c_str());
  if (!csv_path.empty()) std::printf("wrote %s\n", csv_path.c_str());
  std::printf("%zu layers compared, %zu below %s, output cosine %s\n", comparison.layers.size(),
              comparison.layers_below_threshold, Short(comparison.cosine_threshold).c_str(),
              Short(comparison.output_cosine).c_str());
}

int Compare(const ParsedArgs& args) {
  const std::string reference_path = args.positional()[0];
  const std::string model_path = args.positional()[1];
  const std::map<std::string, std::string> input_files = InputFiles(args.Values("input"));
  CompareOptions options;
  options.compile_options = CollectOptions(args);
  options.cosine_threshold = ParseThreshold(args);
  const uint32_t seed = ParseSeed(args);
  const std::string csv_path = args.Value("csv");

  Progress progress;
  const LoadedGraph reference = LoadGraph(reference_path, progress);
  const LoadedGraph model = LoadGraph(model_path, progress);
  const std::vector<Tensor> inputs = MakeInputs(InputInfos(reference.graph()), input_files, seed);
  progress.Show("running and comparing both models ...");
  const ModelComparison comparison = CompareModels(reference.graph(), model.graph(), inputs, options);
  progress.Clear();
  if (!csv_path.empty()) WriteFileAtomically(csv_path, ComparisonCsv(comparison));
  if (args.Has("json")) {
    PrintJson(reference_path, model_path, comparison, csv_path);
  } else {
    PrintHuman(comparison, csv_path);
  }
  return 0;
}

}  // namespace

const Command& CompareCommand() {
  static const Command command{
      {"compare",
       "REFERENCE MODEL",
       "Compares MODEL with REFERENCE (.onnx or .gem) value by value on the same inputs (msaccucmp's metrics).",
       {{"input", "NAME=FILE.npy", true, "data of one input of REFERENCE; inputs not given get seeded random values"},
        {"seed", "N", false, "seed of the random inputs (default 42)"},
        {"csv", "FILE.csv", false, "write every compared value as msaccucmp-style CSV"},
        {"threshold", "COSINE", false, "mark values whose cosine is below this (default 0.99)"},
        kThreadsFlag,
        kOptionFlag,
        {"json", "", false, "print one JSON object instead of the table"}}},
      &Compare};
  return command;
}

}  // namespace ge::cli
