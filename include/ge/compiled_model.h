// A compiled, immutable model: the result of compiling a Graph for a device.
//
// It holds the execution order, one kernel per node, the memory plan and the
// constants. Run() only reads it, so one CompiledModel serves any number of
// threads at once; each run takes its own activation arena from a pool.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge {

using Options = std::map<std::string, std::string>;

struct TensorInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;
  Shape shape;
};

// What the memory planner decided, in bytes.
struct MemorySummary {
  size_t const_bytes = 0;        // weights and other constants
  size_t arena_bytes = 0;        // planned activation arena of one run
  size_t no_reuse_bytes = 0;     // what the activations would take without any reuse
  size_t lower_bound_bytes = 0;  // peak of simultaneously live activation bytes
  // Some shape is only known at run time: nothing is planned (the arena
  // figures are 0); each run allocates its tensors and frees them after their
  // last use.
  bool dynamic = false;
};

struct PassTiming {
  std::string pass;
  double milliseconds = 0;
};

class CompiledModel {
 public:
  // Compiles `graph` with the given options (`ge.*` keys, see docs/options.md).
  static std::shared_ptr<const CompiledModel> Compile(std::unique_ptr<Graph> graph, const Options& options = {});
  // Loads a .gem file written by Save(); no re-import and no re-planning.
  // `options` may override the run-time options stored in the file (today:
  // ge.exec.intraOpThreads); compile options are fixed in the file and are refused.
  static std::shared_ptr<const CompiledModel> Load(const std::string& path, const Options& options = {});
  static std::shared_ptr<const CompiledModel> LoadFromMemory(const void* data, size_t size,
                                                             const std::string& origin = "<memory>",
                                                             const Options& options = {});

  // Writes the model as a .gem file; the file appears whole or not at all.
  void Save(const std::string& path) const;

  // Runs the model. Inputs in the order of inputs(); thread-safe. An input
  // dim that inputs() leaves unknown (-1) takes any size.
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const;

  const std::vector<TensorInfo>& inputs() const;
  const std::vector<TensorInfo>& outputs() const;
  MemorySummary memory() const;
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
};

}  // namespace ge
