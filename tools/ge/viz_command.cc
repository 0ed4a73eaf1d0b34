// ge viz MODEL -o graph.svg [--memory mem.svg]: draws the compiled graph
// (Graphviz's `dot` renders it; a .dot output needs no Graphviz) with nodes
// coloured by stream, and the memory plan as offset over schedule step.
#include <cstdio>
#include <filesystem>

#include <fmt/core.h>

#include "commands.h"
#include "file_writer.h"
#include "ge/plan_summary.h"
#include "graph_dot.h"
#include "graphviz.h"
#include "json_writer.h"
#include "memory_svg.h"
#include "model_loader.h"
#include "options.h"
#include "progress.h"

namespace ge::cli {
namespace {

// -o FILE: by its extension, the DOT text itself ("") or a picture dot renders.
std::string PictureFormat(const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".dot" || extension == ".gv") return "";
  if (extension == ".svg" || extension == ".png" || extension == ".pdf") return extension.substr(1);
  throw UsageError(fmt::format("-o {}: the extension must be .svg, .png, .pdf or .dot", path));
}

void CheckMemoryPictureName(const std::string& path) {
  if (std::filesystem::path(path).extension() != ".svg") {
    throw UsageError(fmt::format("--memory {}: the memory plan is drawn as .svg", path));
  }
}

int Viz(const ParsedArgs& args) {
  if (!args.Has("output") && !args.Has("memory")) {
    throw UsageError("'ge viz' needs -o FILE.svg and/or --memory FILE.svg (see 'ge viz --help')");
  }
  // Usage errors before the compile, which can take a while.
  const std::string format = args.Has("output") ? PictureFormat(args.Value("output")) : "";
  if (args.Has("memory")) CheckMemoryPictureName(args.Value("memory"));
  const std::string path = args.positional().front();
  Progress progress;
  const LoadedModel loaded = LoadModel(path, CollectOptions(args), progress);
  const PlanSummary plan = SummarizePlan(*loaded.model);
  if (args.Has("output")) {
    const std::string dot = GraphToDot(loaded.model->graph(), plan);
    WriteFileAtomically(args.Value("output"), format.empty() ? dot : RenderDot(dot, format));
  }
  if (args.Has("memory")) WriteFileAtomically(args.Value("memory"), MemoryPlanSvg(plan, path));

  if (args.Has("json")) {
    JsonWriter json;
    json.BeginObject();
    json.Key("model").String(path);
    if (args.Has("output")) json.Key("graph").String(args.Value("output"));
    if (args.Has("memory")) json.Key("memory").String(args.Value("memory"));
    json.Key("steps").Int(static_cast<int64_t>(plan.steps.size()));
    json.Key("streams").Int(plan.stream_count);
    json.Key("buffers").Int(static_cast<int64_t>(plan.buffers.size()));
    json.EndObject();
    std::printf("%s\n", json.str().c_str());
  } else {
    if (args.Has("output")) std::printf("graph    %s (%zu steps, %d streams)\n", args.Value("output").c_str(),
                                        plan.steps.size(), plan.stream_count);
    if (args.Has("memory")) std::printf("memory   %s (%zu activations)\n", args.Value("memory").c_str(),
                                        plan.buffers.size());
  }
  return 0;
}

}  // namespace

const Command& VizCommand() {
  static const Command command{
      {"viz",
       "MODEL",
       "Draws the compiled graph (nodes coloured by stream) and the memory plan of a model (.onnx, TensorFlow .pb/.pbtxt/model.json, or .gem).",
       {{"output", "FILE", false, "the graph: .svg/.png/.pdf (rendered with Graphviz's dot) or .dot", 'o'},
        {"memory", "FILE.svg", false, "the memory plan: one box per activation, offset over schedule step"},
        kOptionFlag,
        kThreadsFlag,
        {"json", "", false, "print one JSON object instead of the report"}}},
      &Viz};
  return command;
}

}  // namespace ge::cli
