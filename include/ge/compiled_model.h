// A compiled, immutable model: the result of compiling a Graph for a device.
//
// It holds the execution order, one kernel per node, the memory plan and the
// constants. Run() only reads it, so one CompiledModel serves any number of
// threads at once; each run takes its own activation arena from a bounded
// pool (ge.exec.maxArenas). RunAsync() runs on the model's own run threads.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/error.h"
#include "ge/export.h"
#include "ge/graph.h"
#include "ge/options.h"
#include "ge/tensor.h"

namespace ge {

struct RunProfile;
struct RunStats;

namespace runtime {
class AsyncRunner;
}

struct GE_API TensorInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;
  Shape shape;
  // Inputs: per dim, the name the model gives it ("batch", ONNX dim_param)
  // or empty; empty when no dim is named. Dims named alike must have one
  // size across a run's inputs. Outputs of a model with dims known only at
  // run time: per dim, the expression over those names that gives its size
  // ("past + sequence"; an unnamed input dim is "<input>.<axis>"), empty
  // for a dim that is a constant or depends on data; empty when none has one.
  std::vector<std::string> dim_names = {};
};

// What the memory planner decided, in bytes.
struct GE_API MemorySummary {
  size_t const_bytes = 0;        // weights and other constants
  size_t arena_bytes = 0;        // planned activation arena of one run
  size_t no_reuse_bytes = 0;     // what the activations would take without any reuse
  size_t lower_bound_bytes = 0;  // peak of simultaneously live activation bytes
  // Some shape is only known at run time: nothing is planned ahead (the arena
  // figures are 0). Runs go node by node on tensor buffers pooled across
  // runs, and an input-shape signature that comes back gets a static plan
  // when shapes follow from the input shapes (ge.exec.dynamicPlanAfterRuns,
  // ge.exec.dynamicPlanCacheBytes; docs/runtime.md).
  bool dynamic = false;
  // The placement strategy that gave arena_bytes ("size_best_fit", ...;
  // "no_reuse" with ge.exec.disableReuseMemory; empty when dynamic).
  std::string placement_strategy;
};

// The outcome of an asynchronous run: its outputs, or the error that ended it
// (ge::Error's code and message; any other exception is kInternal).
struct GE_API RunResult {
  std::vector<Tensor> outputs;  // empty on error
  std::optional<Error> error;
  bool ok() const { return !error.has_value(); }
};

// Called once per asynchronous run, on a run thread of the model or session.
// It may start other runs; an exception it throws is reported on stderr and
// ignored.
using RunCallback = std::function<void(RunResult)>;

class GE_API CompiledModel {
 public:
  // Compiles `graph` with the given options (`ge.*` keys, see docs/options.md).
  static std::shared_ptr<const CompiledModel> Compile(std::unique_ptr<Graph> graph, const Options& options = {});
  // Loads a .gem file written by Save(); no re-import and no re-planning.
  // `options` may override the run-time options stored in the file (today:
  // ge.exec.intraOpThreads, ge.exec.maxArenas, ge.exec.asyncWorkers,
  // ge.exec.dynamicPlanCacheBytes, ge.exec.dynamicPlanAfterRuns, ge.exec.dynamicPackWeights,
  // ge.exec.releasePackedConstants, ge.exec.symbolicShapes, ge.exec.maxLoopIterations) and set the load's
  // ge.maxTensorBytes (the file's own is not trusted); compile options are fixed in the file and are refused.
  static std::shared_ptr<const CompiledModel> Load(const std::string& path, const Options& options = {});
  static std::shared_ptr<const CompiledModel> LoadFromMemory(const void* data, size_t size,
                                                             const std::string& origin = "<memory>",
                                                             const Options& options = {});

  // Writes the model as a .gem file; the file appears whole or not at all.
  void Save(const std::string& path) const;

  // Runs the model. Inputs in the order of inputs(); thread-safe. An input
  // dim that inputs() leaves unknown (-1) takes any size.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const;
  // The same, filling `profile` (ge/profile.h) with every step's timing,
  // shapes and the live activation bytes.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs, RunProfile* profile) const;
  // The same, writing outputs into caller buffers (IO binding; ge/io_binding.h
  // binds them by name). `output_buffers` holds one slot per output: an empty
  // Tensor where ge allocates, or a buffer of the output's dtype whose shape
  // equals the output's shape in this run. Kernels write bound buffers in
  // place; one that overlaps an input is written after the run has read every
  // input, so a recurrent state bound as input and output is updated in
  // place. The returned tensors share the bound buffers. Throws
  // kInvalidArgument naming the output for a buffer that does not fit; after
  // a failed run, bound buffers hold undefined values.
  std::vector<Tensor> RunInto(const std::vector<Tensor>& inputs, const std::vector<Tensor>& output_buffers) const;
  // Queues a run on the model's run threads (at most ge.exec.asyncWorkers,
  // started on first use) and returns at once; `callback` gets the result.
  // The input tensors are shared, not copied: keep their buffers unchanged
  // until the callback. Destroying the model waits for every queued run.
  // Throws kInvalidArgument when the callback is empty.
  void RunAsync(std::vector<Tensor> inputs, RunCallback callback) const;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  MemorySummary memory() const;
  // What the runs so far did besides kernels (ge/profile.h): compiles,
  // kernel builds and allocations a steady state no longer makes.
  RunStats run_stats() const;
  const std::vector<PassTiming>& pass_timings() const;
  // The optimized graph the plan was made for.
  const Graph& graph() const;
  const std::string& device_name() const;

  ~CompiledModel();
  struct Impl;
  explicit CompiledModel(std::unique_ptr<Impl> impl);
  const Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
  // Declared last, so that it is destroyed (waiting for the runs) first.
  std::unique_ptr<runtime::AsyncRunner> async_;
};

}  // namespace ge
