// Throughput of the two implementation modes (high_precision,
// high_performance) of every op that has them, in float32, float16 and
// bfloat16, on the shapes of tests/device/impl_mode_cases.h; one thread. The
// table in docs/precision.md comes from
//
//   build/<dir>/benchmarks/ge_impl_mode_benchmark --benchmark_repetitions=5 \
//       --benchmark_report_aggregates_only=true
//
// (medians of the repetitions: the machine is shared).
#include <memory>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <omp.h>

#include "device/device.h"
#include "impl_mode_cases.h"

namespace {

using ge::DataType;

// The kernel of one case's node with its tensors, ready to run.
class Fixture {
 public:
  Fixture(const ge::test::ModeCase& c, DataType dtype, const char* mode) {
    std::mt19937 rng(2024);
    inputs_ = ge::test::DrawInputs(c, dtype, rng);
    ge::Node* node = ge::test::AddModeNode(graph_, c, dtype, inputs_, mode);
    kernel_ = ge::device::CpuDevice().kernels().Find(c.op, dtype)->factory(*node);
    output_ = ge::Tensor(dtype, c.output);
    for (const ge::Tensor& t : inputs_) in_views_.push_back({t.dtype(), &t.shape(), const_cast<void*>(t.data())});
    out_views_.push_back({output_.dtype(), &output_.shape(), output_.data()});
    workspace_.resize(kernel_->WorkspaceBytes() + 64);
  }

  void Run() const {
    void* aligned = workspace_.data() + (64 - reinterpret_cast<uintptr_t>(workspace_.data()) % 64) % 64;
    kernel_->Run(ge::device::KernelContext{in_views_, out_views_, aligned, nullptr});
  }

  int64_t elements() const { return output_.num_elements(); }

 private:
  ge::Graph graph_;
  std::vector<ge::Tensor> inputs_;
  ge::Tensor output_;
  std::unique_ptr<ge::device::Kernel> kernel_;
  std::vector<ge::device::TensorView> in_views_, out_views_;
  mutable std::vector<char> workspace_;
};

void BM_Mode(benchmark::State& state, const ge::test::ModeCase& c, DataType dtype, const char* mode) {
  const Fixture fixture(c, dtype, mode);
  for (auto _ : state) fixture.Run();
  state.SetItemsProcessed(state.iterations() * fixture.elements());
}

}  // namespace

int main(int argc, char** argv) {
  omp_set_num_threads(1);
  for (const ge::test::ModeCase& c : ge::test::ModeCases()) {
    for (DataType dtype : {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16}) {
      for (const char* mode : {"high_precision", "high_performance"}) {
        const std::string name = c.op + "/" + std::string(ge::DataTypeName(dtype)) + "/" + mode;
        benchmark::RegisterBenchmark(name.c_str(), BM_Mode, c, dtype, mode)->Unit(benchmark::kMicrosecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
