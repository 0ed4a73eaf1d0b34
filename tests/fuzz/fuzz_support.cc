#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "ge/graph.h"
#include "ge/tensor.h"
#include "graph/byte_size.h"

namespace ge::fuzz {

namespace {

// The most bytes one tensor may have (ge.maxTensorBytes), and the most the
// fuzzer feeds one run as inputs.
constexpr uint64_t kMaxInputBytes = uint64_t{16} << 20;

// The most multiply-adds the fuzzer lets one run do: a few seconds on the
// sanitizer build, far inside libFuzzer's timeout.
constexpr double kMaxRunMacs = double(uint64_t{1} << 33);

double Elements(const Value* value) {
  if (value == nullptr || !value->shape().IsStatic()) return 0;
  double count = 1;
  for (int64_t dim : value->shape().dims()) count *= static_cast<double>(dim);
  return count;
}

// An upper bound of the multiply-adds of the model's convolutions and
// products at its static shapes: a convolution does at most a filter's
// worth per output channel for each element it reads or writes, a product
// K per output element. A convolution transposed over a 65537-wide filter
// of its own input is a valid model that runs for minutes: the work of the
// model, which the fuzzer has no reason to wait for.
double ProductMacs(const Graph& graph) {
  double macs = 0;
  for (const Node* node : graph.nodes()) {
    const Value* first = node->input(0);
    const Value* second = node->input(1);
    if (first == nullptr || second == nullptr || node->num_outputs() == 0) continue;
    const double out = Elements(node->output(0));
    const Shape& filter = second->shape();
    if (node->op_type().find("Conv") != std::string::npos && filter.IsStatic() && filter.rank() >= 3) {
      const double per_channel = Elements(second) / static_cast<double>(std::max<int64_t>(filter.dim(0), 1));
      macs += std::max(Elements(first), out) * per_channel;
    } else if (node->op_type().find("MatMul") != std::string::npos && first->shape().IsStatic() &&
               first->shape().rank() >= 1) {
      const auto& dims = first->shape().dims();
      const int64_t k = dims.size() >= 2 ? std::max(dims[dims.size() - 1], dims[dims.size() - 2]) : dims.back();
      macs += out * static_cast<double>(k);
    }
  }
  return macs;
}

}  // namespace

const Options& SmallRunOptions() {
  static const Options options = {
      {"ge.exec.intraOpThreads", "1"},
      {"ge.maxTensorBytes", std::to_string(kMaxInputBytes)},
      // A loop whose condition never turns false (a mutated counter) is refused, not run forever.
      {"ge.exec.maxLoopIterations", "10000"},
  };
  return options;
}

const std::string& WriteScratchFile(const std::string& suffix, const uint8_t* data, size_t size) {
  // Kept for the whole process (never destroyed), so the exit handler that removes it can still read it.
  static const std::string* const folder = [] {
    std::string name = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm/ge_fuzz_XXXXXX" : "/tmp/ge_fuzz_XXXXXX";
    if (::mkdtemp(name.data()) == nullptr) std::abort();
    auto* kept = new std::string(std::move(name));
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(*folder, ignored);
    });
    return kept;
  }();
  static std::map<std::string, std::string> paths;
  const std::string& path = paths.try_emplace(suffix, *folder + "/input" + suffix).first->second;
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file || std::fwrite(data, 1, size, file) != size || std::fclose(file) != 0) std::abort();
  return path;
}

void NoteRefusal(const Error& error) {
  static const bool verbose = std::getenv("GE_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "refused: %s\n", error.what());
}

void RunOnZeros(const CompiledModel& model) {
  if (ProductMacs(model.graph()) > kMaxRunMacs) return;
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
