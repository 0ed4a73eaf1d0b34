#include <cstdio>
#include <cstdlib>
#include <vector>

#include "fuzz_target.h"
#include "ge/tensor.h"

namespace ge::fuzz {

const Options& SmallRunOptions() {
  static const Options options = {
      {"ge.exec.intraOpThreads", "1"},
      {"ge.maxTensorBytes", "16777216"},  // 16 MiB
  };
  return options;
}

void NoteRefusal(const Error& error) {
  static const bool verbose = std::getenv("GE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", error.what());
}

void RunOnZeros(const CompiledModel& model) {
  std::vector<Tensor> inputs;
  for (const TensorInfo& input : model.inputs()) {
    if (input.dtype == DataType::kString || input.shape.unknown_rank()) return;
    std::vector<int64_t> dims = input.shape.dims();
    for (int64_t& dim : dims) {
      if (dim < 0) dim = 1;
    }
    inputs.emplace_back(input.dtype, Shape(std::move(dims)));
  }
  model.Run(inputs);
}

}  // namespace ge::fuzz
