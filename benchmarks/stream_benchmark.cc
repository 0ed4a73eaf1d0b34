// Multi-stream vs single-stream latency of an inception-like block
// (benchmarks/inception_graph.h): N parallel branches of Conv2D + Relu.
// Both plans share the run's intra-op thread budget (all cores the process
// may use, e.g. under taskset); docs/runtime.md has the table.
//
//   taskset -c 0,1 build/<dir>/benchmarks/ge_stream_benchmark [--branches 4] [--depth 2]
//       [--channels 32] [--size 28] [--runs 50] [--streams N (default: one per branch)]
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "inception_graph.h"
#include "runtime/execution_plan.h"

namespace {

struct Settings {
  int branches = 4;
  int depth = 2;
  int64_t channels = 32;
  int64_t size = 28;
  int runs = 50;
  int streams = 0;  // ge.streamMaxParallelNum; 0: one per branch
};

Settings ParseArgs(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    long value = std::strtol(argv[i + 1], nullptr, 10);
    if (value <= 0) {
      std::fprintf(stderr, "%s: expected a positive integer, got '%s'\n", argv[i], argv[i + 1]);
      std::exit(2);
    }
    if (!std::strcmp(argv[i], "--branches")) settings.branches = static_cast<int>(value);
    else if (!std::strcmp(argv[i], "--depth")) settings.depth = static_cast<int>(value);
    else if (!std::strcmp(argv[i], "--channels")) settings.channels = value;
    else if (!std::strcmp(argv[i], "--size")) settings.size = value;
    else if (!std::strcmp(argv[i], "--runs")) settings.runs = static_cast<int>(value);
    else if (!std::strcmp(argv[i], "--streams")) settings.streams = static_cast<int>(value);
    else {
      std::fprintf(stderr, "unknown option %s (--branches, --depth, --channels, --size, --runs, --streams)\n", argv[i]);
      std::exit(2);
    }
  }
  return settings;
}

struct Result {
  double median_ms;
  double min_ms;
  int streams;
  size_t arena_bytes;
};

Result Measure(const Settings& s, const ge::Options& options) {
  auto model = ge::CompiledModel::Compile(ge::bench::InceptionLikeGraph(s.branches, s.depth, s.channels, s.size),
                                          options);
  ge::Tensor x(ge::DataType::kFloat, {1, s.channels, s.size, s.size});
  std::fill_n(x.data_as<float>(), x.num_elements(), 0.25f);
  for (int i = 0; i < 3; ++i) model->Run({x});
  std::vector<double> times;
  for (int i = 0; i < s.runs; ++i) {
    auto start = std::chrono::steady_clock::now();
    model->Run({x});
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return Result{times[times.size() / 2], times.front(), model->impl().stream_count, model->memory().arena_bytes};
}

}  // namespace

int main(int argc, char** argv) try {
  Settings s = ParseArgs(argc, argv);
  std::printf("inception-like: %d branches x %d conv3x3+relu, %lld channels, %lldx%lld, %d cores, %d runs\n",
              s.branches, s.depth, static_cast<long long>(s.channels), static_cast<long long>(s.size),
              static_cast<long long>(s.size), omp_get_num_procs(), s.runs);
  Result single = Measure(s, {{"ge.enableSingleStream", "true"}});
  int streams = s.streams > 0 ? s.streams : s.branches;
  Result multi = Measure(s, {{"ge.enableSingleStream", "false"}, {"ge.streamMaxParallelNum", std::to_string(streams)}});
  std::printf("single-stream: median %.3f ms, min %.3f ms, arena %zu bytes\n", single.median_ms, single.min_ms,
              single.arena_bytes);
  std::printf("multi-stream:  median %.3f ms, min %.3f ms, arena %zu bytes, %d streams\n", multi.median_ms,
              multi.min_ms, multi.arena_bytes, multi.streams);
  std::printf("speedup (median): %.2fx\n", single.median_ms / multi.median_ms);
  return 0;
} catch (const std::exception& error) {
  std::fprintf(stderr, "ge_stream_benchmark: %s\n", error.what());
  return 1;
}
