// ge run MODEL: runs a model on given or random inputs, times it and reports
// outputs, latency, peak memory and the memory plan.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include <fmt/core.h>

#include "chrome_trace.h"
#include "commands.h"
#include "file_writer.h"
#include "ge/profile.h"
#include "graph/npy.h"
#include "import_flags.h"
#include "input_tensors.h"
#include "json_writer.h"
#include "model_loader.h"
#include "options.h"
#include "output_file_name.h"
#include "progress.h"
#include "report.h"
#include "tensor_values.h"

namespace ge::cli {
namespace {

constexpr uint32_t kInputSeed = 42;
constexpr size_t kShownValues = 5;

struct LatencyStats {
  double median = 0;
  double p90 = 0;
  double p99 = 0;
  double min = 0;
};

// Nearest-rank percentiles of the per-run latencies.
LatencyStats Summarize(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  auto percentile = [&](double p) {
    const size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(samples.size())));
    return samples[std::clamp<size_t>(rank, 1, samples.size()) - 1];
  };
  return {percentile(0.5), percentile(0.9), percentile(0.99), samples.front()};
}

// Peak resident set of this process so far; Linux reports ru_maxrss in KiB.
double PeakRssMegabytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

struct RunResult {
  std::vector<Tensor> outputs;
  std::vector<double> latencies_ms;
  RunStats after_warmup, after;  // the model's counters (ge/profile.h)
};

// What the timed runs alone did: a steady state compiles, builds and allocates nothing.
RunStats Difference(const RunStats& later, const RunStats& earlier) {
  return RunStats{later.runs - earlier.runs,
                  later.planned_runs - earlier.planned_runs,
                  later.node_by_node_runs - earlier.node_by_node_runs,
                  later.plans_compiled - earlier.plans_compiled,
                  later.kernels_built - earlier.kernels_built,
                  later.buffer_allocations - earlier.buffer_allocations,
                  later.shape_inferences - earlier.shape_inferences};
}

void WriteRunStats(JsonWriter& json, const RunStats& stats) {
  json.BeginObject();
  json.Key("runs").Int(static_cast<int64_t>(stats.runs));
  json.Key("planned_runs").Int(static_cast<int64_t>(stats.planned_runs));
  json.Key("node_by_node_runs").Int(static_cast<int64_t>(stats.node_by_node_runs));
  json.Key("plans_compiled").Int(static_cast<int64_t>(stats.plans_compiled));
  json.Key("kernels_built").Int(static_cast<int64_t>(stats.kernels_built));
  json.Key("buffer_allocations").Int(static_cast<int64_t>(stats.buffer_allocations));
  json.Key("shape_inferences").Int(static_cast<int64_t>(stats.shape_inferences));
  json.EndObject();
}

RunResult TimeRuns(const CompiledModel& model, const std::vector<Tensor>& inputs, int64_t warmup, int64_t loop,
                   Progress& progress) {
  RunResult result;
  for (int64_t i = 0; i < warmup; ++i) {
    progress.Show(fmt::format("warm-up run {}/{}", i + 1, warmup));
    result.outputs = model.Run(inputs);
  }
  result.after_warmup = model.run_stats();
  for (int64_t i = 0; i < loop; ++i) {
    progress.Show(fmt::format("timed run {}/{}", i + 1, loop));
    const auto start = std::chrono::steady_clock::now();
    result.outputs = model.Run(inputs);
    result.latencies_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  result.after = model.run_stats();
  progress.Clear();
  return result;
}

// One more run, profiled, written as a Chrome trace (whole or not at all).
void WriteProfile(const CompiledModel& model, const std::vector<Tensor>& inputs, const std::string& model_path,
                  const std::string& trace_path) {
  RunProfile profile;
  model.Run(inputs, &profile);
  WriteFileAtomically(trace_path, ChromeTrace(profile, model_path));
}

// Writes each output as DIR/<sanitized name>.npy; returns the paths in output order.
std::vector<std::string> WriteOutputs(const std::string& dir, const std::vector<TensorInfo>& infos,
                                      const std::vector<Tensor>& outputs) {
  CreateOutputDirectory(dir);
  std::vector<std::string> files;
  for (size_t i = 0; i < outputs.size(); ++i) {
    files.push_back((std::filesystem::path(dir) / OutputFileName(infos[i].name)).string());
    WriteNpy(files.back(), outputs[i]);
  }
  return files;
}

void PrintJson(const LoadedModel& loaded, const RunResult& run, const LatencyStats& latency,
               const std::vector<std::string>& files, double baseline_rss_mb) {
  const CompiledModel& model = *loaded.model;
  JsonWriter json;
  json.BeginObject();
  json.Key("compile_ms").Number(loaded.prepare_ms);
  json.Key("latency_ms").BeginObject();
  json.Key("median").Number(latency.median);
  json.Key("p90").Number(latency.p90);
  json.Key("p99").Number(latency.p99);
  json.Key("min").Number(latency.min);
  json.EndObject();
  json.Key("runs").Int(static_cast<int64_t>(run.latencies_ms.size()));
  json.Key("peak_rss_mb").Number(PeakRssMegabytes());
  json.Key("baseline_rss_mb").Number(baseline_rss_mb);
  json.Key("memory");
  WriteMemorySummary(json, model.memory());
  json.Key("run_stats");
  WriteRunStats(json, run.after);
  json.Key("timed_run_stats");
  WriteRunStats(json, Difference(run.after, run.after_warmup));
  json.Key("outputs").BeginArray();
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    json.BeginObject();
    json.Key("name").String(model.outputs()[i].name);
    json.Key("dtype").String(DataTypeName(run.outputs[i].dtype()));
    json.Key("shape");
    WriteShape(json, run.outputs[i].shape());
    json.Key("file");
    files.empty() ? json.Null() : json.String(files[i]);
    json.EndObject();
  }
  json.EndArray();
  json.EndObject();
  std::printf("%s\n", json.str().c_str());
}

void PrintHuman(const std::string& path, const LoadedModel& loaded, const RunResult& run, const LatencyStats& latency,
                int64_t warmup, const std::vector<std::string>& files, double baseline_rss_mb) {
  const CompiledModel& model = *loaded.model;
  std::printf("model     %s (%s in %.1f ms, device %s)\n", path.c_str(),
              loaded.format == ModelFormat::kGem ? "loaded" : "compiled", loaded.prepare_ms,
              model.device_name().c_str());
  std::vector<std::vector<std::string>> rows = {{"name", "dtype", "shape", "first values"}};
  for (size_t i = 0; i < run.outputs.size(); ++i) {
    const Tensor& output = run.outputs[i];
    rows.push_back({model.outputs()[i].name, std::string(DataTypeName(output.dtype())), output.shape().ToString(),
                    FormatLeadingValues(output, kShownValues)});
  }
  std::printf("outputs\n%s", FormatTable(rows).c_str());
  for (const std::string& file : files) std::printf("  wrote %s\n", file.c_str());
  std::printf("latency   median %.3f ms, p90 %.3f ms, min %.3f ms (%zu runs after %lld warm-up)\n", latency.median,
              latency.p90, latency.min, run.latencies_ms.size(), static_cast<long long>(warmup));
  std::printf("peak RSS  %.1f MB (%.1f MB before the model was loaded)\n", PeakRssMegabytes(), baseline_rss_mb);
  std::printf("memory    %s\n", FormatMemorySummary(model.memory()).c_str());
  // A static model runs its plan every time: the counters matter for dynamic ones.
  if (!model.memory().dynamic) return;
  const RunStats& all = run.after;
  const RunStats timed = Difference(run.after, run.after_warmup);
  std::printf("runs      %llu: %llu planned, %llu node by node; %llu plans compiled, %llu kernels built, %llu buffers "
              "allocated, %llu shapes inferred (timed runs: %llu, %llu, %llu, %llu)\n",
              static_cast<unsigned long long>(all.runs), static_cast<unsigned long long>(all.planned_runs),
              static_cast<unsigned long long>(all.node_by_node_runs), static_cast<unsigned long long>(all.plans_compiled),
              static_cast<unsigned long long>(all.kernels_built), static_cast<unsigned long long>(all.buffer_allocations),
              static_cast<unsigned long long>(all.shape_inferences),
              static_cast<unsigned long long>(timed.plans_compiled), static_cast<unsigned long long>(timed.kernels_built),
              static_cast<unsigned long long>(timed.buffer_allocations),
              static_cast<unsigned long long>(timed.shape_inferences));
}

int Run(const ParsedArgs& args) {
  const std::string path = args.positional().front();
  const int64_t loop = args.IntValue("loop", 10, 1);
  const int64_t warmup = args.IntValue("warmup", 1, 0);
  const std::map<std::string, std::string> input_files = InputFiles(args.Values("input"));
  Options options = CollectOptions(args);
  // A run never saves the model, so its weights need not stay next to the
  // copies the kernels packed (unless the user says otherwise).
  options.emplace("ge.exec.releasePackedConstants", "1");

  // The process with ge's libraries loaded and initialized, before the model:
  // what the model itself costs is the peak minus this.
  const double baseline_rss_mb = PeakRssMegabytes();
  Progress progress;
  const LoadedModel loaded =
      LoadModel(path, options, progress, ImportChoicesFromArgs(args, DetectModelFormat(path), path));
  const std::vector<Tensor> inputs = MakeInputs(loaded.model->inputs(), input_files, kInputSeed);
  const RunResult run = TimeRuns(*loaded.model, inputs, warmup, loop, progress);
  if (args.Has("profile")) WriteProfile(*loaded.model, inputs, path, args.Value("profile"));
  const LatencyStats latency = Summarize(run.latencies_ms);
  const std::vector<std::string> files =
      args.Has("output-dir") ? WriteOutputs(args.Value("output-dir"), loaded.model->outputs(), run.outputs)
                             : std::vector<std::string>{};
  if (args.Has("json")) {
    PrintJson(loaded, run, latency, files, baseline_rss_mb);
  } else {
    PrintHuman(path, loaded, run, latency, warmup, files, baseline_rss_mb);
  }
  return 0;
}

// The run's own flags, then the import's (ATC's, for TensorFlow and Caffe models), then the common ones.
std::vector<FlagSpec> RunFlags() {
  std::vector<FlagSpec> flags = {
      {"input", "NAME=FILE.npy", true, "data of one input; inputs not given get seeded random values"},
      {"output-dir", "DIR", false, "write each output to DIR/<output name>.npy"},
      {"loop", "N", false, "timed runs (default 10)"},
      {"warmup", "N", false, "untimed runs before the timed ones (default 1)"},
      {"profile", "FILE.json", false, "after the timed runs, profile one run into a Chrome trace (chrome://tracing)"}};
  const std::vector<FlagSpec> import = ImportFlags();
  flags.insert(flags.end(), import.begin(), import.end());
  flags.insert(flags.end(), {kThreadsFlag, kOptionFlag, {"json", "", false, "print one JSON object instead of the report"}});
  return flags;
}

}  // namespace

const Command& RunCommand() {
  static const Command command{
      {"run", "MODEL",
       "Runs a model (.onnx, TensorFlow .pb/.pbtxt/model.json, Caffe .prototxt, or .gem) and reports its outputs, "
       "latency, peak memory and memory plan.",
       RunFlags()},
      &Run};
  return command;
}

}  // namespace ge::cli
