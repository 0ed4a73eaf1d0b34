// ge compile MODEL -o m.gem: compiles an ONNX or TensorFlow model into a .gem
// file; ATC's --framework, --input_shape and --out_nodes spell the TensorFlow
// import's options.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "file_checks.h"
#include "file_writer.h"
#include "ge/impl_mode_report.h"
#include "ge/error.h"
#include "import_flags.h"
#include "json_writer.h"
#include "model_loader.h"
#include "options.h"
#include "progress.h"
#include "report.h"

namespace ge::cli {
namespace {

// --report: what the compile decided per node, for review and diffs.
std::string ReportJson(const std::string& model_path, const std::string& output_path, const CompiledModel& model) {
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(model_path);
  json.Key("output").String(output_path);
  json.Key("impl_modes");
  WriteImplModeReport(json, ImplModeReport(model));
  json.EndObject();
  return json.str() + "\n";
}

// The report is written after the model; when it cannot be, the command fails
// as a whole and takes the model it wrote back, so no half of it is left.
void WriteReportOrRemoveModel(const std::string& path, const std::string& contents, const std::string& model_path) {
  try {
    WriteFileAtomically(path, contents);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(model_path, ignored);
    throw;
  }
}

int Compile(const ParsedArgs& args) {
  if (!args.Has("output")) throw UsageError("'ge compile' needs -o FILE.gem (see 'ge compile --help')");
  const std::string model_path = args.positional().front();
  const std::string output_path = args.Value("output");
  const ModelFormat format = DetectModelFormat(model_path);
  if (format == ModelFormat::kGem) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("'{}' is already a compiled .gem model; 'ge compile' takes an ONNX or TensorFlow model",
                            model_path));
  }
  const ImportChoices choices = ImportChoicesFromArgs(args, format, model_path);

  Progress progress;
  const LoadedModel loaded = LoadModel(model_path, CollectOptions(args), progress, choices);
  const auto save_start = std::chrono::steady_clock::now();
  loaded.model->Save(output_path);
  const double save_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - save_start).count();
  const size_t file_bytes = FileSize(output_path);

  if (args.Has("report")) {
    WriteReportOrRemoveModel(args.Value("report"), ReportJson(model_path, output_path, *loaded.model), output_path);
  }

  if (args.Has("json")) {
    JsonWriter json;
    json.BeginObject();
    json.Key("model").String(model_path);
    json.Key("output").String(output_path);
    json.Key("output_bytes").Int(static_cast<int64_t>(file_bytes));
    json.Key("compile_ms").Number(loaded.prepare_ms);
    json.Key("save_ms").Number(save_ms);
    json.Key("memory");
    WriteMemorySummary(json, loaded.model->memory());
    json.EndObject();
    std::printf("%s\n", json.str().c_str());
  } else {
    std::printf("compiled %s -> %s (%s) in %.1f ms, saved in %.1f ms\n", model_path.c_str(), output_path.c_str(),
                FormatBytes(file_bytes).c_str(), loaded.prepare_ms, save_ms);
    std::printf("memory   %s\n", FormatMemorySummary(loaded.model->memory()).c_str());
  }
  return 0;
}

// The flags: the general ones, then ATC's precision flags.
std::vector<FlagSpec> CompileFlags() {
  std::vector<FlagSpec> flags = {{"model", "FILE.onnx", false, "the model to compile, when not given as MODEL"}};
  const std::vector<FlagSpec> import = ImportFlags();
  flags.insert(flags.end(), import.begin(), import.end());
  flags.insert(flags.end(), {
      {"output", "FILE.gem", false, "where to write the compiled model (required)", 'o'},
      kThreadsFlag,
      kOptionFlag,
      {"json", "", false, "print one JSON object instead of the summary"},
      {"report", "FILE.json", false, "write the implementation mode of each node and why (docs/precision.md)"}});
  for (const OptionFlag& precision : PrecisionFlags()) flags.push_back(precision.flag);
  return flags;
}

}  // namespace

const Command& CompileCommand() {
  static const Command command{
      {"compile", "MODEL",
       "Compiles an ONNX, TensorFlow or Caffe model into a .gem file that 'ge run' and CompiledModel::Load load "
       "without recompiling.",
       CompileFlags(), "model"},
      &Compile};
  return command;
}

}  // namespace ge::cli
