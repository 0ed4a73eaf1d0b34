// ge quantize MODEL --calib-data DIR -o q.gem [--config cfg.txt]:
// post-training quantization (docs/quantization.md).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <fmt/core.h>

#include "commands.h"
#include "file_checks.h"
#include "file_writer.h"
#include "ge/cpu_paths.h"
#include "ge/error.h"
#include "ge/quantize.h"
#include "import_flags.h"
#include "json_writer.h"
#include "model_loader.h"
#include "options.h"
#include "progress.h"
#include "report.h"

namespace ge::cli {
namespace {

std::string FormatCosine(double cosine) { return std::isnan(cosine) ? "-" : fmt::format("{:.5f}", cosine); }

// --report-dir: the files that replay the result through ATC-style options.
void WriteReplayFiles(const std::string& dir, const QuantizeResult& result) {
  CreateOutputDirectory(dir);
  const std::filesystem::path base(dir);
  WriteFileAtomically((base / "quant_config.txt").string(), result.final_config);
  WriteFileAtomically((base / "record.txt").string(), result.record);
  WriteFileAtomically((base / "compare.csv").string(), result.compare_csv);
  WriteFileAtomically((base / "op_precision.ini").string(), result.op_precision_ini);
  WriteFileAtomically((base / "keep_dtype.cfg").string(), result.keep_dtype);
}

void PrintJson(const std::string& model_path, const std::string& output_path, size_t output_bytes,
               const QuantizeResult& result, double seconds, const std::optional<double>& target,
               const std::string& soc_version) {
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(model_path);
  json.Key("output").String(output_path);
  json.Key("output_bytes").Int(static_cast<int64_t>(output_bytes));
  json.Key("seconds").Number(seconds);
  json.Key("output_cosine").Number(result.output_cosine);
  if (target) json.Key("target_cosine").Number(*target);
  json.Key("layers").BeginArray();
  for (const QuantizedLayer& layer : result.layers) {
    json.BeginObject();
    json.Key("layer").String(layer.layer);
    json.Key("op_type").String(layer.op_type);
    json.Key("framework").String(layer.framework);
    json.Key("framework_op").String(layer.framework_op);
    json.Key("rule").String(layer.rule);
    json.Key("notes").BeginArray();
    for (const std::string& note : layer.notes) json.String(note);
    json.EndArray();
    json.Key("decision").String(layer.decision);
    json.Key("activation_algo").String(layer.activation_algo);
    json.Key("cosine").Number(layer.cosine);
    json.EndObject();
  }
  json.EndArray();
  json.Key("soc_version").String(soc_version);
  json.Key("warnings").BeginArray();
  for (const std::string& warning : result.warnings) json.String(warning);
  json.EndArray();
  json.Key("fallback").BeginArray();
  for (const FallbackStep& step : result.fallback) {
    json.BeginObject();
    json.Key("layer").String(step.layer);
    json.Key("from").String(step.from);
    json.Key("to").String(step.to);
    json.Key("layer_cosine_before").Number(step.layer_cosine_before);
    json.Key("layer_cosine_after").Number(step.layer_cosine_after);
    json.Key("output_cosine_after").Number(step.output_cosine_after);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  std::printf("%s\n", json.str().c_str());
}

void PrintHuman(const std::string& model_path, const std::string& output_path, size_t output_bytes,
                const QuantizeResult& result, double seconds, double layer_cosine) {
  std::vector<std::vector<std::string>> rows = {{"layer", "type", "from", "decision", "calibrator", "cosine", ""}};
  size_t quantized = 0;
  for (const QuantizedLayer& layer : result.layers) {
    const bool low = !std::isnan(layer.cosine) && layer.cosine < layer_cosine;
    rows.push_back({layer.layer, layer.op_type, layer.framework + " " + layer.framework_op, layer.decision,
                    layer.activation_algo, FormatCosine(layer.cosine), low ? "<" : ""});
    if (layer.decision.rfind("skipped", 0) != 0) ++quantized;
  }
  std::printf("%s", FormatTable(rows).c_str());
  for (const QuantizedLayer& layer : result.layers) {
    for (const std::string& note : layer.notes) std::printf("note %s: %s\n", layer.layer.c_str(), note.c_str());
  }
  for (const FallbackStep& step : result.fallback) {
    std::printf("fallback %s: %s -> %s (layer cosine %s -> %s, output %s)\n", step.layer.c_str(), step.from.c_str(),
                step.to.c_str(), FormatCosine(step.layer_cosine_before).c_str(),
                FormatCosine(step.layer_cosine_after).c_str(), FormatCosine(step.output_cosine_after).c_str());
  }
  std::printf("quantized %zu of %zu layers of %s -> %s (%s) in %.1f s, output cosine %s\n", quantized,
              result.layers.size(), model_path.c_str(), output_path.c_str(), FormatBytes(output_bytes).c_str(),
              seconds, FormatCosine(result.output_cosine).c_str());
}

double ParseCosine(const ParsedArgs& args, const std::string& flag, double fallback) {
  if (!args.Has(flag)) return fallback;
  const std::string text = args.Value(flag);
  try {
    size_t used = 0;
    const double value = std::stod(text, &used);
    if (used == text.size() && value > 0 && value <= 1) return value;
  } catch (const std::exception&) {
  }
  throw UsageError(fmt::format("--{}: '{}' is not a cosine in (0, 1]", flag, text));
}

int Quantize(const ParsedArgs& args) {
  if (!args.Has("output")) throw UsageError("'ge quantize' needs -o FILE.gem (see 'ge quantize --help')");
  if (!args.Has("calib-data") && !args.Has("from-record")) {
    throw UsageError("'ge quantize' needs --calib-data DIR|LIST, or --from-record FILE to reuse earlier factors");
  }
  const std::string model_path = args.positional().front();
  const std::string output_path = args.Value("output");
  const ModelFormat format = DetectModelFormat(model_path);
  if (format == ModelFormat::kGem) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("'{}' is a compiled .gem model; 'ge quantize' takes the float ONNX, TensorFlow or Caffe "
                            "model",
                            model_path));
  }
  const ImportChoices choices = ImportChoicesFromArgs(args, format, model_path);
  const auto start = std::chrono::steady_clock::now();
  Progress progress;
  progress.Show(fmt::format("importing {} ...", model_path));
  std::unique_ptr<Graph> graph = ImportModel(model_path, format, choices);

  QuantizeOptions options;
  options.compile_options = CollectOptions(args);
  options.config_path = args.Value("config");
  options.record_in = args.Value("from-record");
  options.record_out = args.Value("record");
  options.requant_fusion = !args.Has("no-requant-fusion");
  options.target_isa = args.Value("target-isa");
  options.soc_version = args.Value("soc_version");
  if (!options.target_isa.empty()) Int8UsesVnni(options.target_isa, "--target-isa");  // one error line naming the flag
  options.layer_cosine = ParseCosine(args, "layer-cosine", 0.99);
  if (args.Has("target-cosine")) options.target_output_cosine = ParseCosine(args, "target-cosine", 0.99);
  if (args.Has("calib-data")) {
    std::vector<TensorInfo> inputs;
    for (const Value* input : graph->inputs()) inputs.push_back({input->name(), input->dtype(), input->shape()});
    options.calibration_batches = LoadCalibrationData(args.Value("calib-data"), inputs);
  }
  options.progress = [&progress](const std::string& stage, size_t done, size_t total) {
    progress.Show(fmt::format("{}: {}/{}", stage, done, total));
  };
  progress.Show("calibrating ...");
  const QuantizeResult result = Quantize(*graph, options);
  progress.Show(fmt::format("compiling the quantized model ..."));
  CompiledModel::Compile(result.graph->Clone(), options.compile_options)->Save(output_path);
  progress.Clear();
  if (args.Has("report-dir")) WriteReplayFiles(args.Value("report-dir"), result);

  const size_t output_bytes = FileSize(output_path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (args.Has("json")) {
    PrintJson(model_path, output_path, output_bytes, result, seconds, options.target_output_cosine,
              options.soc_version.empty() ? "CPU" : options.soc_version);
  } else {
    PrintHuman(model_path, output_path, output_bytes, result, seconds, options.layer_cosine);
  }
  for (const std::string& warning : result.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const bool missed = options.target_output_cosine && result.output_cosine < *options.target_output_cosine;
  if (missed) {
    std::fprintf(stderr, "warning: output cosine %s is below the target %s even after the fallback ladder\n",
                 FormatCosine(result.output_cosine).c_str(), FormatCosine(*options.target_output_cosine).c_str());
  }
  return 0;
}

std::vector<FlagSpec> QuantizeFlags() {
  std::vector<FlagSpec> flags = {{"model", "FILE", false, "the float model, when not given as MODEL"}};
  const std::vector<FlagSpec> import = ImportFlags();
  flags.insert(flags.end(), import.begin(), import.end());
  flags.insert(flags.end(),
         {{"output", "FILE.gem", false, "where to write the quantized, compiled model (required)", 'o'},
          {"config", "FILE", false, "AMCT simple config (protobuf text); default: INT8, IFMR, channel-wise ARQ"},
          {"calib-data", "DIR|LIST", false,
           "calibration batches: a folder of .npy files, or a text file listing one batch per line"},
          {"record", "FILE", false, "write the quantization factors (record file) here"},
          {"from-record", "FILE", false, "take the factors from this record file instead of calibrating"},
          {"target-cosine", "C", false,
           "climb the fallback ladder until the output cosine reaches C (and every layer --layer-cosine)"},
          {"layer-cosine", "C", false, "the per-layer cosine gate of the fallback ladder (default 0.99)"},
          {"no-requant-fusion", "", false, "keep AscendDequant -> AscendQuant pairs (layer-wise comparison)"},
          {"soc_version", "SOC", false,
           "the product to quantize for (ATC's spelling: Ascend310P3, Ascend910B1, Ascend910_9391, Ascend310B1, "
           "IPV350, ...): its rules decide the layers; default CPU, no product restrictions"},
          {"target-isa", "ISA", false,
           "the CPU the model will run on (AVX2, AVX512_CORE_VNNI, ...); without VNNI, 7-bit Conv2D weights; "
           "default: this one"},
          {"report-dir", "DIR", false,
           "write quant_config.txt, record.txt, compare.csv, op_precision.ini and keep_dtype.cfg here"},
          kThreadsFlag,
          kOptionFlag,
          {"json", "", false, "print one JSON object instead of the table"}});
  return flags;
}

}  // namespace

const Command& QuantizeCommand() {
  static const Command command{
      {"quantize", "MODEL",
       "Quantizes a float ONNX, TensorFlow or Caffe model to INT8/INT16 (AMCT-style calibration) and writes a compiled .gem.",
       QuantizeFlags(), "model"},
      &Quantize};
  return command;
}

}  // namespace ge::cli
