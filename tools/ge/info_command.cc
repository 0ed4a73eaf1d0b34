// ge info MODEL: describes a model: inputs, outputs, ops, memory plan, pass
// timings, the CPU paths its kernels take and, for a .gem, the versions
// recorded in its header.
#include <cstdio>
#include <map>
#include <optional>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "ge/cpu_paths.h"
#include "ge/impl_mode_report.h"
#include "ge/plan_summary.h"
#include "gem_header.h"
#include "json_writer.h"
#include "model_loader.h"
#include "progress.h"
#include "report.h"

namespace ge::cli {
namespace {

// Op type -> node count of the compiled (optimized) graph, Data and Const included.
std::map<std::string, int64_t> CountOpTypes(const Graph& graph) {
  std::map<std::string, int64_t> counts;
  for (const Node* node : graph.nodes()) ++counts[node->op_type()];
  return counts;
}

// The shape with each named dim shown by its name or expression:
// [batch, sequence, 256], [1, 4, sequence + past, 64]; "?" for a dim that
// depends on data.
std::string ShapeWithNames(const TensorInfo& info) {
  if (info.dim_names.empty()) return info.shape.ToString();
  std::vector<std::string> dims;
  for (size_t a = 0; a < info.dim_names.size(); ++a) {
    const int64_t dim = info.shape.dim(a);
    dims.push_back(!info.dim_names[a].empty() ? info.dim_names[a]
                   : dim == Shape::kUnknownDim ? std::string("?")
                                               : std::to_string(dim));
  }
  return "[" + fmt::format("{}", fmt::join(dims, ", ")) + "]";
}

std::vector<std::vector<std::string>> TensorRows(const std::vector<TensorInfo>& infos) {
  std::vector<std::vector<std::string>> rows = {{"name", "dtype", "shape"}};
  for (const TensorInfo& info : infos) {
    rows.push_back({info.name, std::string(DataTypeName(info.dtype)), ShapeWithNames(info)});
  }
  return rows;
}

void PrintJson(const std::string& path, const LoadedModel& loaded, const std::optional<GemHeader>& header) {
  const CompiledModel& model = *loaded.model;
  JsonWriter json;
  json.BeginObject();
  json.Key("model").String(path);
  json.Key("format").String(ModelFormatName(loaded.format));
  json.Key("device").String(model.device_name());
  if (model.device_name() == "cpu") {
    const CpuPaths cpu = DescribeCpuPaths();
    json.Key("cpu").BeginObject();
    json.Key("loops").String(cpu.loops).Key("onednn").String(cpu.onednn);
    json.Key("int8").String(cpu.int8).Key("bf16").String(cpu.bf16);
    json.EndObject();
  }
  if (header) {
    json.Key("gem").BeginObject();
    json.Key("format_version").Int(header->format_version);
    json.Key("producer").String(header->producer);
    json.Key("target_device").String(header->target_device);
    json.Key("isa").String(header->isa);
    json.EndObject();
  }
  json.Key("inputs");
  WriteTensorInfos(json, model.inputs());
  json.Key("outputs");
  WriteTensorInfos(json, model.outputs());
  json.Key("node_count").Int(static_cast<int64_t>(model.graph().num_nodes()));
  json.Key("op_types").BeginObject();
  for (const auto& [op_type, count] : CountOpTypes(model.graph())) json.Key(op_type).Int(count);
  json.EndObject();
  json.Key("memory");
  WriteMemorySummary(json, model.memory());
  const PlanSummary plan = SummarizePlan(model);
  json.Key("plan").BeginObject();
  json.Key("dynamic").Bool(plan.dynamic);
  json.Key("steps").Int(static_cast<int64_t>(plan.steps.size()));
  json.Key("streams").Int(plan.stream_count);
  json.Key("events").Int(plan.event_count);
  json.Key("const_bytes").Int(static_cast<int64_t>(plan.const_bytes));
  json.Key("feature_bytes").Int(static_cast<int64_t>(plan.feature_bytes));
  json.EndObject();
  json.Key("impl_modes");
  WriteImplModeReport(json, ImplModeReport(model));
  json.Key("pass_timings").BeginArray();
  for (const PassTiming& timing : model.pass_timings()) {
    json.BeginObject().Key("pass").String(timing.pass).Key("ms").Number(timing.milliseconds).EndObject();
  }
  json.EndArray();
  json.Key("compile_ms").Number(loaded.prepare_ms);
  json.EndObject();
  std::printf("%s\n", json.str().c_str());
}

void PrintHuman(const std::string& path, const LoadedModel& loaded, const std::optional<GemHeader>& header) {
  const CompiledModel& model = *loaded.model;
  std::printf("model     %s (%s, device %s)\n", path.c_str(), ModelFormatName(loaded.format),
              model.device_name().c_str());
  if (model.device_name() == "cpu") {
    const CpuPaths cpu = DescribeCpuPaths();
    std::printf("cpu       loops %s, oneDNN %s, int8 %s, bf16 %s (docs/cpu-kernels.md)\n", cpu.loops.c_str(),
                cpu.onednn.c_str(), cpu.int8.c_str(), cpu.bf16.c_str());
  }
  if (header) {
    std::printf("gem       format version %u, written by %s for %s (%s)\n", header->format_version,
                header->producer.c_str(), header->target_device.c_str(), header->isa.c_str());
  }
  std::printf("inputs\n%s", FormatTable(TensorRows(model.inputs())).c_str());
  std::printf("outputs\n%s", FormatTable(TensorRows(model.outputs())).c_str());
  std::vector<std::vector<std::string>> op_rows = {{"op type", "nodes"}};
  for (const auto& [op_type, count] : CountOpTypes(model.graph())) op_rows.push_back({op_type, std::to_string(count)});
  std::printf("nodes     %zu in the compiled graph\n%s", model.graph().num_nodes(), FormatTable(op_rows).c_str());
  std::printf("memory    %s\n", FormatMemorySummary(model.memory()).c_str());
  const PlanSummary plan = SummarizePlan(model);
  if (plan.dynamic) {
    std::printf("plan      dynamic: shapes resolve at run time, node by node\n");
  } else {
    std::printf("plan      %zu steps on %d stream%s, %d event%s\n", plan.steps.size(), plan.stream_count,
                plan.stream_count == 1 ? "" : "s", plan.event_count, plan.event_count == 1 ? "" : "s");
  }
  const std::vector<ImplModeRecord> impl_modes = ImplModeReport(model);
  if (impl_modes.empty()) {
    std::printf("impl mode no node asked for one or offers a choice\n");
  } else {
    std::printf("impl mode per node (docs/precision.md)\n%s", FormatTable(ImplModeRows(impl_modes)).c_str());
  }
  if (model.pass_timings().empty()) {
    std::printf("passes    none recorded (%s)\n",
                loaded.format == ModelFormat::kGem ? "a .gem is loaded, not recompiled" : "no pass ran");
    return;
  }
  std::vector<std::vector<std::string>> pass_rows = {{"pass", "ms"}};
  for (const PassTiming& timing : model.pass_timings()) {
    pass_rows.push_back({timing.pass, fmt::format("{:.3f}", timing.milliseconds)});
  }
  std::printf("passes\n%s", FormatTable(pass_rows).c_str());
}

int Info(const ParsedArgs& args) {
  const std::string path = args.positional().front();
  Progress progress;
  const LoadedModel loaded = LoadModel(path, {}, progress);
  std::optional<GemHeader> header;
  if (loaded.format == ModelFormat::kGem) header = ReadGemHeader(path);
  if (args.Has("json")) {
    PrintJson(path, loaded, header);
  } else {
    PrintHuman(path, loaded, header);
  }
  return 0;
}

}  // namespace

const Command& InfoCommand() {
  static const Command command{
      {"info",
       "MODEL",
       "Describes a model (.onnx, TensorFlow .pb/.pbtxt/model.json, or .gem): inputs, outputs, ops, memory plan, CPU paths, pass timings, .gem versions.",
       {{"json", "", false, "print one JSON object instead of the report"}}},
      &Info};
  return command;
}

}  // namespace ge::cli
