// Graph passes and the pass manager.
//
// A pass rewrites a Graph in place. Passes are registered under a stage and a
// unique name; the manager runs them stage by stage in registration order,
// skips the ones switched off by name, times each, and can dump the IR after
// each pass. Passes never call a device: constant folding evaluates nodes
// through the ConstantEvaluator the runtime hands in.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "ge/options.h"

namespace ge {

enum class PassStage : int {
  kImport = 0,         // right after import: normalization, identity removal
  kBeforeInferShape,   // graph surgery that does not need shapes
  kInferShape,         // shape/dtype inference (and attribute defaults)
  kAfterInferShape,    // folding and fusion that need shapes
  kPrecision,          // precision_mode and impl-mode selection
  kQuantize,           // quantization rewrite
  kDevice,             // the target device's own rewrites (Device::RewritePasses)
  kFinal,              // cleanup before planning (dead code)
};

std::string_view PassStageName(PassStage stage);

// Evaluates one node on constant inputs; nullopt when it cannot (no kernel).
class ConstantEvaluator {
 public:
  virtual ~ConstantEvaluator() = default;
  virtual std::optional<std::vector<Tensor>> Evaluate(const Node& node, const std::vector<Tensor>& inputs) = 0;
};

namespace passes {
struct ImplModeSelection;
struct PrecisionPolicy;
}

struct PassContext {
  const Options* options = nullptr;
  ConstantEvaluator* evaluator = nullptr;  // may be null: folding is then skipped
  // Implementation-mode selection (impl_mode pass); null: the pass does nothing.
  const passes::ImplModeSelection* impl_modes = nullptr;
  // The modes the device kernel of a node implements, its default first
  // (empty: none declared, or no kernel). Set with impl_modes.
  std::function<std::vector<std::string>(const Node&)> kernel_impl_modes;
  // precision_mode / precision_mode_v2 (precision_mode pass); null: the pass does nothing.
  const passes::PrecisionPolicy* precision = nullptr;
  // Whether the device has a kernel for the op type and (first-input) dtype. Set with precision.
  std::function<bool(const std::string& op_type, DataType dtype)> has_kernel;
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  // Returns true when the graph changed.
  virtual bool Run(Graph& graph, PassContext& ctx) = 0;
};

struct PassManagerOptions {
  std::set<std::string> disabled;  // pass names switched off
  std::string dump_dir;            // when set: <dump_dir>/<NN>_<pass>.txt after each pass
  // Leaves out PassStage::kDevice: the device-independent optimized graph
  // that quantization and layer comparison work on.
  bool skip_device_stage = false;
};

class PassManager {
 public:
  // Throws when the name is taken.
  void Register(PassStage stage, std::unique_ptr<Pass> pass);
  std::vector<std::string> PassNames() const;
  // Runs all enabled passes; returns their timings in run order. Throws
  // ge::Error for a disabled name that is not registered (listing the valid names).
  std::vector<PassTiming> Run(Graph& graph, PassContext& ctx, const PassManagerOptions& options) const;

  // The built-in pipeline: shape inference, identity removal, constant
  // folding, Conv+BatchNorm folding, precision-mode casts,
  // implementation-mode selection, the LayerNorm / Gelu / MatMul-bias
  // fusions and dead-code elimination (builtin_passes.h has one line on
  // each). The compiler adds the target device's rewrites (PassStage::kDevice).
  static PassManager WithBuiltinPasses();

 private:
  struct Entry {
    PassStage stage;
    std::unique_ptr<Pass> pass;
  };
  std::vector<Entry> entries_;
};

// Text form of a graph for dumps and `ge info` (one node per line).
std::string DumpGraph(const Graph& graph);

}  // namespace ge
