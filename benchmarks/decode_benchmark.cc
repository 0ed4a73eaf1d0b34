// Greedy decoding with a KV-cache language model exported to ONNX: the
// latency per token of a dynamic model whose cache grows by one row each
// step (docs/performance.md, "Dynamic shapes"). benchmarks/decode_compare.sh
// runs it beside ONNX Runtime.
//
//   build/default/benchmarks/ge_decode_benchmark MODEL.onnx|MODEL.gem [--prompt N] [--tokens N] [--threads N]
//                                                [--bind] [--option KEY=VALUE]... [--profile] [--json]
//
// A .gem is the model compiled by `ge compile` (loaded, not imported).
//
// The model's contract (benchmarks/export_decoder.py writes one): one int64
// input of token ids [1, sequence]; float cache inputs whose one unknown dim
// is the past length; output 0 the logits [1, sequence, vocabulary]; outputs
// 1.. the caches after the step, in the order of the cache inputs. The
// prefill feeds the prompt (tokens 1..N) with empty caches; every decode
// step feeds the argmax of the last logits and the caches the step before
// returned. Prints the decode latency (median, p90), the prefill's, the
// process's peak RSS and the runtime's counters, and the tokens, so that
// another runtime's can be compared. --bind runs through ge::IoBinding with
// the caches bound to the caller's buffers: two per cache, of the longest
// length, viewed at each step's shape; a step reads one and ge writes the
// next cache into the other. --option compiles with a ge option
// (docs/options.md); ge.exec.releasePackedConstants is 1 unless given, as in
// ge run. --profile adds where the last step's
// time went: by op type, and the share outside the kernels (inference,
// kernel lookup, buffers).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/error.h"
#include "ge/io_binding.h"
#include "ge/onnx_importer.h"
#include "ge/profile.h"
#include "runtime/dynamic/dynamic_executor.h"
#include "runtime/execution_plan.h"

namespace {

using Clock = std::chrono::steady_clock;

double Milliseconds(Clock::time_point begin) {
  return std::chrono::duration<double, std::milli>(Clock::now() - begin).count();
}

double Percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

int64_t ArgmaxOfLastRow(const ge::Tensor& logits) {
  const int64_t vocabulary = logits.shape().dim(logits.shape().rank() - 1);
  const float* row = logits.data_as<float>() + logits.num_elements() - vocabulary;
  return std::max_element(row, row + vocabulary) - row;
}

// The profiled step by op type, largest first, and what the kernels did not take.
void PrintProfile(const ge::RunProfile& profile) {
  std::map<std::string, std::pair<int, double>> by_op;
  double kernels = 0;
  for (const ge::StepProfile& step : profile.steps) {
    auto& [count, us] = by_op[step.op_type];
    ++count;
    us += step.duration_us;
    kernels += step.duration_us;
  }
  std::vector<std::pair<std::string, std::pair<int, double>>> rows(by_op.begin(), by_op.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.second > b.second.second; });
  std::printf("last step: %.1f us, %zu steps; outside the steps %.1f us\n%-16s %5s %9s\n", profile.total_us,
              profile.steps.size(), profile.total_us - kernels, "op type", "steps", "us");
  for (const auto& [op, entry] : rows) std::printf("%-16s %5d %9.1f\n", op.c_str(), entry.first, entry.second);
}

struct Arguments {
  std::string model;
  int prompt = 8, tokens = 64, threads = 1;
  bool json = false;
  bool profile = false;
  bool bind = false;
  ge::Options options;
};

[[noreturn]] void Usage(const char* message) {
  std::fprintf(stderr, "ge_decode_benchmark: %s\nusage: ge_decode_benchmark MODEL.onnx|MODEL.gem [--prompt N] "
                       "[--tokens N] [--threads N] [--bind] [--option KEY=VALUE]... [--profile] [--json]\n", message);
  std::exit(2);
}

Arguments Parse(int argc, char** argv) {
  Arguments args;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto count = [&](int minimum) {
      if (i + 1 >= argc) Usage((arg + " needs a value").c_str());
      const int value = std::atoi(argv[++i]);
      if (value < minimum) Usage((arg + " must be at least " + std::to_string(minimum)).c_str());
      return value;
    };
    if (arg == "--prompt") args.prompt = count(1);
    else if (arg == "--tokens") args.tokens = count(1);
    else if (arg == "--threads") args.threads = count(1);
    else if (arg == "--json") args.json = true;
    else if (arg == "--profile") args.profile = true;
    else if (arg == "--bind") args.bind = true;
    else if (arg == "--option") {
      if (i + 1 >= argc) Usage("--option needs KEY=VALUE");
      const std::string option = argv[++i];
      const size_t equals = option.find('=');
      if (equals == std::string::npos) Usage(("--option " + option + " is not KEY=VALUE").c_str());
      args.options[option.substr(0, equals)] = option.substr(equals + 1);
    }
    else if (arg.rfind("--", 0) == 0) Usage(("unknown option " + arg + " (valid: --prompt, --tokens, --threads, --bind, --option, --profile, --json)").c_str());
    else args.model = arg;
  }
  if (args.model.empty()) Usage("no model given");
  return args;
}

// Runs steps through an IoBinding whose cache outputs go into two caller
// buffers per cache, of the longest length, taken in turn.
class BoundCaches {
 public:
  BoundCaches(std::shared_ptr<const ge::CompiledModel> model, size_t ids, int64_t longest)
      : binding_(model), ids_(ids) {
    const std::vector<ge::TensorInfo>& inputs = model->inputs();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (i == ids) continue;
      std::vector<int64_t> dims = inputs[i].shape.dims();
      const auto past = std::find(dims.begin(), dims.end(), ge::Shape::kUnknownDim);
      past_axis_.push_back(past - dims.begin());
      *past = longest;
      for (auto& buffers : storage_) buffers.emplace_back(inputs[i].dtype, ge::Shape(dims));
    }
  }

  std::vector<ge::Tensor> Run(const std::vector<ge::Tensor>& feed, int step) {
    const std::vector<ge::TensorInfo>& inputs = binding_.model().inputs();
    const std::vector<ge::TensorInfo>& outputs = binding_.model().outputs();
    const int64_t sequence = feed[ids_].shape().dim(1);
    size_t cache = 0;
    for (size_t i = 0; i < feed.size(); ++i) {
      binding_.BindInput(inputs[i].name, feed[i]);
      if (i == ids_) continue;
      std::vector<int64_t> dims = feed[i].shape().dims();
      dims[past_axis_[cache]] += sequence;
      ge::Tensor& buffer = storage_[step % 2][cache];
      binding_.BindOutput(outputs[1 + cache].name, ge::Tensor::Borrow(buffer.dtype(), ge::Shape(dims), buffer.data()));
      ++cache;
    }
    binding_.Run();
    return binding_.outputs();
  }

 private:
  ge::IoBinding binding_;
  size_t ids_;
  std::vector<int64_t> past_axis_;        // by cache
  std::vector<ge::Tensor> storage_[2];    // by turn, then by cache
};

}  // namespace

int main(int argc, char** argv) {
  const Arguments args = Parse(argc, argv);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double baseline_mb = static_cast<double>(usage.ru_maxrss) / 1024;  // the process before the model
  try {
    ge::Options options = args.options;
    options["ge.exec.intraOpThreads"] = std::to_string(args.threads);
    // As ge run does: the model is never saved, so its weights are kept only packed.
    options.emplace("ge.exec.releasePackedConstants", "1");
    const bool gem = std::filesystem::path(args.model).extension() == ".gem";
    auto model = gem ? ge::CompiledModel::Load(args.model, options)
                     : ge::CompiledModel::Compile(ge::ImportOnnxFile(args.model), options);
    const std::vector<ge::TensorInfo>& inputs = model->inputs();
    std::vector<ge::Tensor> feed(inputs.size());
    size_t ids = inputs.size();
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].dtype == ge::DataType::kInt64) {
        ids = i;
        continue;
      }
      std::vector<int64_t> dims = inputs[i].shape.dims();
      std::replace(dims.begin(), dims.end(), ge::Shape::kUnknownDim, int64_t{0});  // the empty cache
      feed[i] = ge::Tensor(inputs[i].dtype, ge::Shape(dims));
    }
    if (ids == inputs.size()) Usage("the model has no int64 token input");
    std::vector<int64_t> prompt(static_cast<size_t>(args.prompt));
    for (int t = 0; t < args.prompt; ++t) prompt[t] = 1 + t;
    feed[ids] = ge::Tensor::FromVector(ge::DataType::kInt64, {1, args.prompt}, prompt);

    std::optional<BoundCaches> bound;
    if (args.bind) bound.emplace(model, ids, args.prompt + args.tokens);
    std::vector<double> steps;
    std::vector<int64_t> generated;
    double prefill = 0;
    ge::RunProfile last;
    for (int step = 0; step <= args.tokens; ++step) {
      const Clock::time_point begin = Clock::now();
      std::vector<ge::Tensor> outputs = args.profile && step == args.tokens ? model->Run(feed, &last)
                                        : bound                               ? bound->Run(feed, step)
                                                                              : model->Run(feed);
      (step == 0 ? prefill : steps.emplace_back()) = Milliseconds(begin);
      generated.push_back(ArgmaxOfLastRow(outputs[0]));
      feed[ids] = ge::Tensor::FromVector(ge::DataType::kInt64, {1, 1}, std::vector<int64_t>{generated.back()});
      size_t next = 1;
      for (size_t i = 0; i < feed.size(); ++i) {
        if (i != ids) feed[i] = outputs[next++];
      }
    }
    getrusage(RUSAGE_SELF, &usage);
    const double rss_mb = static_cast<double>(usage.ru_maxrss) / 1024;
    const ge::runtime::DynamicExecutor* dynamic = model->impl().dynamic.get();
    const uint64_t kernels = dynamic ? dynamic->kernels_built() : 0;
    const uint64_t buffers = dynamic ? dynamic->buffer_allocations() : 0;
    const size_t plans = dynamic ? dynamic->plans().size() : 0;
    const uint64_t inferences = model->run_stats().shape_inferences;
    std::string tokens;
    for (int64_t token : generated) tokens += (tokens.empty() ? "" : ",") + std::to_string(token);
    if (args.json) {
      std::printf("{\"runtime\":\"ge\",\"tokens\":%d,\"median_ms\":%.4f,\"p90_ms\":%.4f,\"prefill_ms\":%.3f,"
                  "\"peak_rss_mb\":%.1f,\"rss_above_baseline_mb\":%.1f,\"kernels_built\":%llu,\"buffer_allocations\":%llu,\"plans\":%zu,"
                  "\"shape_inferences\":%llu,\"generated\":[%s]}\n",
                  args.tokens, Percentile(steps, 0.5), Percentile(steps, 0.9), prefill, rss_mb, rss_mb - baseline_mb,
                  static_cast<unsigned long long>(kernels), static_cast<unsigned long long>(buffers), plans,
                  static_cast<unsigned long long>(inferences), tokens.c_str());
    } else {
      std::printf("ge: %d tokens after a %d-token prompt: median %.3f ms/token (p90 %.3f), prefill %.2f ms, peak RSS "
                  "%.0f MB (%.0f above the baseline); %llu kernels built, %llu tensor buffers allocated, %zu static plans\ntokens: %s\n",
                  args.tokens, args.prompt, Percentile(steps, 0.5), Percentile(steps, 0.9), prefill, rss_mb,
                  rss_mb - baseline_mb,
                  static_cast<unsigned long long>(kernels), static_cast<unsigned long long>(buffers), plans,
                  tokens.c_str());
    }
    if (args.profile) PrintProfile(last);
  } catch (const ge::Error& error) {
    std::fprintf(stderr, "ge_decode_benchmark: %s\n", error.what());
    return 1;
  }
  return 0;
}
