// What validating a .gem file costs at load time (runtime/model_file/gem_validation.h):
// the median of whole loads and the median of the validation alone, measured
// interleaved in one process so that a busy machine slows both alike.
// docs/model-file.md records the figures.
//
//   build/default/benchmarks/ge_gem_load_benchmark MODEL.gem [REPETITIONS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "runtime/execution_plan.h"
#include "runtime/model_file/gem_validation.h"

namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point begin) {
  return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s MODEL.gem [REPETITIONS]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const int repetitions = argc > 2 ? std::max(1, std::atoi(argv[2])) : 51;
  // One thread, as the other benchmarks: kernels build the same way every time.
  const ge::Options options = {{"ge.exec.intraOpThreads", "1"}};
  std::vector<double> loads, validations;
  for (int r = 0; r < repetitions; ++r) {
    Clock::time_point begin = Clock::now();
    auto model = ge::CompiledModel::Load(path, options);
    loads.push_back(Milliseconds(begin));
    // The graph checks take a mutable graph (inference writes its results,
    // then the stored shapes are put back); the model's is const, so a copy.
    std::unique_ptr<ge::Graph> graph = model->graph().Clone();
    const uint64_t cap = model->impl().settings.max_tensor_bytes;
    begin = Clock::now();
    ge::runtime::ValidateLoadedGraph(*graph, cap);
    ge::runtime::ValidateLoadedPlan(model->impl(), cap);
    validations.push_back(Milliseconds(begin));
  }
  const double load = Median(loads), validation = Median(validations);
  std::printf("%s: load %.3f ms, of which validation %.3f ms (%.1f%%); medians of %d\n", path.c_str(), load, validation,
              100 * validation / load, repetitions);
  return 0;
}
