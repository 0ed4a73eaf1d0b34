#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "ge/tensor.h"
#include "graph/byte_size.h"

namespace ge::fuzz {

namespace {

// The most bytes one tensor may have (ge.maxTensorBytes), and the most the
// fuzzer feeds one run as inputs.
constexpr uint64_t kMaxInputBytes = uint64_t{16} << 20;

}  // namespace

const Options& SmallRunOptions() {
  static const Options options = {
      {"ge.exec.intraOpThreads", "1"},
      {"ge.maxTensorBytes", std::to_string(kMaxInputBytes)},
  };
  return options;
}

void NoteRefusal(const Error& error) {
  static const bool verbose = std::getenv("GE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", error.what());
}

void RunOnZeros(const CompiledModel& model) {
  std::vector<Tensor> inputs;
  uint64_t bytes = 0;
  for (const TensorInfo& input : model.inputs()) {
    if (input.dtype == DataType::kString || input.shape.unknown_rank()) return;
    std::vector<int64_t> dims = input.shape.dims();
    for (int64_t& dim : dims) {
      if (dim < 0) dim = 1;
    }
    Shape shape(std::move(dims));
    // The caller's inputs are the caller's memory: ge's cap bounds only what
    // the model makes. A [?, 2^35] input is compiled, not fed.
    const std::optional<int64_t> input_bytes = CheckedByteSize(shape, input.dtype);
    if (!input_bytes || (bytes += static_cast<uint64_t>(*input_bytes)) > kMaxInputBytes) return;
    inputs.emplace_back(input.dtype, std::move(shape));
  }
  model.Run(inputs);
}

}  // namespace ge::fuzz
