// ge compile MODEL -o m.gem: compiles an ONNX or TensorFlow model into a .gem
// file; ATC's --framework, --input_shape and --out_nodes spell the TensorFlow
// import's options.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "commands.h"
#include "file_checks.h"
#include "file_writer.h"
#include "ge/impl_mode_report.h"
#include "ge/error.h"
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

// The non-empty parts of `text` between separators.
std::vector<std::string> SplitOn(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

const char* FormatName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kTensorFlow: return "TensorFlow";
    case ModelFormat::kCaffe: return "Caffe";
    default: return "ONNX";
  }
}

// ATC's framework numbers: 0 Caffe, 3 TensorFlow, 5 ONNX.
void CheckFramework(const std::string& value, ModelFormat format, const std::string& model_path) {
  if (value != "0" && value != "3" && value != "5") {
    throw UsageError(fmt::format("--framework '{}' is not valid (valid: 0 Caffe, 3 TensorFlow, 5 ONNX)", value));
  }
  const ModelFormat wanted = value == "0" ? ModelFormat::kCaffe : value == "3" ? ModelFormat::kTensorFlow : ModelFormat::kOnnx;
  if (format != wanted) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("--framework {} says {}, but '{}' is a {} model", value,
                                                         FormatName(wanted), model_path, FormatName(format)));
  }
}

int64_t ParseDim(const std::string& text, const std::string& entry) {
  size_t used = 0;
  int64_t dim = 0;
  try {
    dim = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || dim < -1) {
    throw UsageError(fmt::format("--input_shape entry '{}': '{}' is not a dim (an integer >= 0, or -1)", entry, text));
  }
  return dim;
}

// ATC's --input_shape "name:1,224,224,3;name2:1,10": the placeholders' shapes.
std::map<std::string, Shape> ParseInputShapes(const std::string& value) {
  std::map<std::string, Shape> shapes;
  for (const std::string& entry : SplitOn(value, ';')) {
    const size_t colon = entry.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      throw UsageError(fmt::format("--input_shape entry '{}' is not NAME:DIMS (e.g. images:1,224,224,3)", entry));
    }
    std::vector<int64_t> dims;
    const std::string list = entry.substr(colon + 1);
    if (!list.empty()) {
      for (const std::string& dim : SplitOn(list, ',')) dims.push_back(ParseDim(dim, entry));
    }
    shapes[entry.substr(0, colon)] = Shape(std::move(dims));
  }
  return shapes;
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
  if (args.Has("framework")) CheckFramework(args.Value("framework"), format, model_path);
  ImportChoices choices;
  for (const char* flag : {"input_shape", "out_nodes"}) {
    if (args.Has(flag) && format != ModelFormat::kTensorFlow) {
      throw UsageError(fmt::format("--{} applies to TensorFlow models; '{}' is a {} model", flag, model_path,
                                   FormatName(format)));
    }
  }
  if (args.Has("weight") && format != ModelFormat::kCaffe) {
    throw UsageError(fmt::format("--weight applies to Caffe nets; '{}' is a {} model", model_path, FormatName(format)));
  }
  if (args.Has("input_shape")) choices.tf.input_shapes = ParseInputShapes(args.Value("input_shape"));
  if (args.Has("out_nodes")) choices.tf.output_nodes = SplitOn(args.Value("out_nodes"), ';');
  if (args.Has("weight")) choices.caffe_weights = args.Value("weight");

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
  std::vector<FlagSpec> flags = {
      {"model", "FILE.onnx", false, "the model to compile, when not given as MODEL"},
      {"framework", "N", false, "ATC's framework of MODEL: 0 Caffe, 3 TensorFlow, 5 ONNX; checked against the file"},
      {"weight", "FILE.caffemodel", false, "a Caffe net's trained weights (default: MODEL's stem .caffemodel)"},
      {"input_shape", "\"NAME:D,D,..;...\"", false, "TensorFlow placeholders' shapes, for dims the model leaves unknown"},
      {"out_nodes", "\"NODE:I;...\"", false, "TensorFlow graph outputs (default: every node nothing reads)"},
      {"output", "FILE.gem", false, "where to write the compiled model (required)", 'o'},
      kThreadsFlag,
      kOptionFlag,
      {"json", "", false, "print one JSON object instead of the summary"},
      {"report", "FILE.json", false, "write the implementation mode of each node and why (docs/precision.md)"}};
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
