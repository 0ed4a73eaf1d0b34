// Compile time and single-thread run latency of the demo model and, when
// ../shared/models exists, of each shared model.
//
//   build/default/benchmarks/ge_model_benchmarks [--benchmark_filter=...]
#include <algorithm>
#include <filesystem>
#include <random>
#include <span>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "ge/compiled_model.h"
#include "ge/onnx_importer.h"

namespace {

namespace fs = std::filesystem;

// One intra-op thread, so that numbers are stable on a shared machine and
// comparable with ort-bench's default.
const ge::Options kSingleThread = {{"ge.exec.intraOpThreads", "1"}};

std::vector<fs::path> BenchmarkedModels() {
  std::vector<fs::path> models = {fs::path(GE_SOURCE_DIR) / "models" / "demo_cnn.onnx"};
  const fs::path shared = fs::path(GE_SHARED_DIR) / "models";
  std::error_code ec;
  if (fs::is_directory(shared, ec)) {
    std::vector<fs::path> found;
    for (const auto& entry : fs::directory_iterator(shared)) {
      if (entry.path().extension() == ".onnx") found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    models.insert(models.end(), found.begin(), found.end());
  }
  return models;
}

// Uniform [-1, 1] data for every float input (the benchmarked models take only float inputs).
std::vector<ge::Tensor> RandomInputs(const ge::CompiledModel& model) {
  std::mt19937 engine(42);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<ge::Tensor> inputs;
  for (const ge::TensorInfo& info : model.inputs()) {
    ge::Tensor tensor(info.dtype, info.shape);
    if (info.dtype == ge::DataType::kFloat) {
      for (float& v : std::span<float>(tensor.data_as<float>(), static_cast<size_t>(tensor.num_elements()))) {
        v = dist(engine);
      }
    }
    inputs.push_back(tensor);
  }
  return inputs;
}

// A model ge cannot handle is reported as that benchmark's error, not a crash.
void BM_Compile(benchmark::State& state, const fs::path& model) {
  try {
    for (auto _ : state) {
      auto compiled = ge::CompiledModel::Compile(ge::ImportOnnxFile(model.string()), kSingleThread);
      benchmark::DoNotOptimize(compiled);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

void BM_Run(benchmark::State& state, const fs::path& model) {
  try {
    const auto compiled = ge::CompiledModel::Compile(ge::ImportOnnxFile(model.string()), kSingleThread);
    const std::vector<ge::Tensor> inputs = RandomInputs(*compiled);
    for (auto _ : state) {
      auto outputs = compiled->Run(inputs);
      benchmark::DoNotOptimize(outputs);
    }
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  for (const fs::path& model : BenchmarkedModels()) {
    const std::string name = model.stem().string();
    benchmark::RegisterBenchmark(("compile/" + name).c_str(), BM_Compile, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
    benchmark::RegisterBenchmark(("run/" + name).c_str(), BM_Run, model)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Threads(1);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
