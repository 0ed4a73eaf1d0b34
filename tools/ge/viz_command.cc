// ge viz MODEL -o graph.svg [--memory mem.svg]: draws the compiled graph
// (Graphviz's `dot` renders it; a .dot output needs no Graphviz) with nodes
// coloured by stream, and the memory plan as offset over schedule step.
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "commands.h"
#include "file_writer.h"
#include "ge/error.h"
#include "ge/plan_summary.h"
#include "graph_dot.h"
#include "json_writer.h"
#include "memory_svg.h"
#include "model_loader.h"
#include "options.h"
#include "progress.h"

namespace ge::cli {
namespace {

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// Renders DOT to `path` in the format its extension names (.svg, .png, .pdf)
// with Graphviz's dot, through a temporary file renamed at the end.
void RenderWithDot(const std::string& dot, const std::string& path, const std::string& format) {
  const std::string dot_file = path + ".dot.tmp";
  const std::string rendered = path + ".tmp";
  WriteFileAtomically(dot_file, dot);
  const std::string command = fmt::format("dot -T{} -o {} {} 2>&1", format, ShellQuote(rendered), ShellQuote(dot_file));
  const int status = std::system(command.c_str());
  std::remove(dot_file.c_str());
  if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::remove(rendered.c_str());
    const bool missing = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 127;
    throw Error(missing ? ErrorCode::kNotFound : ErrorCode::kIoError,
                missing ? fmt::format("{}: Graphviz's 'dot' is not installed (apt-get install graphviz); -o FILE.dot "
                                      "writes the graph without it",
                                      path)
                        : fmt::format("{}: 'dot -T{}' failed", path, format));
  }
  std::error_code error;
  std::filesystem::rename(rendered, path, error);
  if (error) throw Error(ErrorCode::kIoError, fmt::format("{}: cannot write: {}", path, error.message()));
}

void WriteGraphPicture(const std::string& dot, const std::string& path) {
  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".dot" || extension == ".gv") {
    WriteFileAtomically(path, dot);
  } else if (extension == ".svg" || extension == ".png" || extension == ".pdf") {
    RenderWithDot(dot, path, extension.substr(1));
  } else {
    throw UsageError(fmt::format("-o {}: the extension must be .svg, .png, .pdf or .dot", path));
  }
}

int Viz(const ParsedArgs& args) {
  if (!args.Has("output") && !args.Has("memory")) {
    throw UsageError("'ge viz' needs -o FILE.svg and/or --memory FILE.svg (see 'ge viz --help')");
  }
  const std::string path = args.positional().front();
  Progress progress;
  const LoadedModel loaded = LoadModel(path, CollectOptions(args), progress);
  const PlanSummary plan = SummarizePlan(*loaded.model);
  if (args.Has("output")) WriteGraphPicture(GraphToDot(loaded.model->graph(), plan), args.Value("output"));
  if (args.Has("memory")) {
    if (std::filesystem::path(args.Value("memory")).extension() != ".svg") {
      throw UsageError(fmt::format("--memory {}: the memory plan is drawn as .svg", args.Value("memory")));
    }
    WriteFileAtomically(args.Value("memory"), MemoryPlanSvg(plan, path));
  }

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
       "Draws the compiled graph (nodes coloured by stream) and the memory plan of a model (.onnx or .gem).",
       {{"output", "FILE", false, "the graph: .svg/.png/.pdf (rendered with Graphviz's dot) or .dot", 'o'},
        {"memory", "FILE.svg", false, "the memory plan: one box per activation, offset over schedule step"},
        kOptionFlag,
        kThreadsFlag,
        {"json", "", false, "print one JSON object instead of the report"}}},
      &Viz};
  return command;
}

}  // namespace ge::cli
