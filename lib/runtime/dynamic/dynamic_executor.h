// Runs a model whose shapes are not all static after compilation (unknown
// input dims, data-dependent output shapes, control flow).
//
// Two tiers. Every run starts on the node-by-node path: it walks the
// optimized graph in topological order with the run's own shapes (a
// RunFrame, run_frame.h; the shared graph is never copied or written),
// infers each node with the tensors computed so far visible as constant
// inputs (schemas compute exact shapes from them: Reshape of a computed
// shape, NonZero), takes the node's kernel from a cache, and runs it on
// buffers from the frame's pool, which go back at their last reader; the
// outputs it hands out come from an OutputPool that recycles the buffers of
// outputs the caller has dropped (a decoder's previous caches).
// Kernels that take their shapes at run time (device::Kernel::
// TakesShapesAtRun) serve every shape of their dtypes and ranks; the others
// are cached by exact shapes. Control-flow nodes run their compiled
// subgraphs instead. A run at shapes seen before thus compiles nothing and,
// once the caller drops earlier outputs, allocates no tensor memory.
//
// When runs come back to one input-shape signature
// (ge.exec.dynamicPlanAfterRuns), that signature gets a plan (plan_cache.h):
// the model compiled for those shapes, with the fusions and the planned
// arena of a static model where every shape follows from the input shapes,
// or, where some shape still depends on data or control flow, with its
// static regions planned and the rest node by node (static_regions.h). A
// decoder whose KV cache grows by one each token never repeats a signature
// and stays on the first tier; an encoder fed a few batch shapes moves to
// plans. The first signature whose regions are too small to plan stops
// planning for good.
//
// Runs share the kernel cache and the plans; each has its own frame, so any
// number of threads may run one model at once.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "device/device.h"
#include "ge/profile.h"
#include "graph/op_schema.h"
#include "runtime/dynamic/control_flow.h"
#include "runtime/dynamic/kernel_cache.h"
#include "runtime/dynamic/output_pool.h"
#include "runtime/dynamic/plan_cache.h"
#include "runtime/dynamic/run_frame.h"
#include "runtime/dynamic/symbolic_steps.h"
#include "runtime/execution_plan.h"

namespace ge::runtime {

class DynamicExecutor {
 public:
  // Kernels built for distinct shapes that a model keeps.
  static constexpr size_t kKernelCacheCapacity = 1024;
  // Input-shape signatures whose runs are counted toward a plan; past it the
  // counts start over.
  static constexpr size_t kCountedSignatures = 4096;

  // `impl` has its values numbered (NumberValues) and outlives the executor.
  // Throws ge::Error (kUnsupported) naming the node when the device has no
  // kernel for a node's op type and dtype.
  DynamicExecutor(const CompiledModel::Impl& impl, const device::Device& device);

  // Inputs already checked against impl.inputs. `direct` is empty or holds
  // a slot per output: a buffer bound to it that overlaps no input
  // (output_binding.h; kernels write it in place, or the run copies into it
  // at the end) or an empty Tensor. Throws ge::Error (kInvalidArgument)
  // naming the node whose output shape cannot be determined or the output
  // whose bound buffer does not fit, and the errors of inference and kernels.
  // `profile`, when given, gets every step (its start times relative to the
  // caller's clock are set by CompiledModel::Run).
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs, const std::vector<Tensor>& direct = {},
                          RunProfile* profile = nullptr) const;

  // For tests and reports:
  // kernels cached so far,
  size_t cached_kernels() const { return kernels_.size(); }
  // kernels built so far (a run at shapes seen before builds none),
  uint64_t kernels_built() const { return kernels_built_.load(); }
  // tensor buffers the node-by-node path allocated so far, outputs included (likewise),
  uint64_t buffer_allocations() const { return frames_.buffer_allocations() + outputs_.allocations(); }
  // the static plans per input-shape signature,
  const PlanCache& plans() const { return plans_; }
  // whether runs still look for a static plan,
  bool plans_shapes() const { return plannable_.load(); }
  // and all of it, as CompiledModel::run_stats reports it.
  RunStats stats() const;

 private:
  struct NodeStep {
    const Node* node = nullptr;  // in impl.graph
    const OpSchema* schema = nullptr;
    std::vector<int> inputs;   // value ids; -1 for an absent optional input
    std::vector<int> outputs;  // value ids
    std::vector<DataType> output_dtypes;  // as the graph infers them
    // Per output, its dims, when a symbolic rule proved every output's: a
    // run computes them (ShapesFromSymbols) instead of inferring. Empty otherwise.
    std::vector<SymbolicSizes> symbolic_dims;
    // Per output, its integer contents, when every output's are known from
    // the symbols and none is a graph output (shape arithmetic): a run writes
    // them (ContentsFromSymbols) instead of running a kernel. Empty otherwise.
    std::vector<SymbolicSizes> symbolic_contents;
    // If, Loop, Scan, and the sequence and optional ops (sequence_ops.h):
    // run on whole values instead of inference and a kernel.
    std::shared_ptr<const ControlFlowOp> control_flow;
  };

  // The cached plan for these input shapes, a new one when the signature
  // has come back often enough, or nullptr (the run goes node by node).
  std::shared_ptr<const CompiledModel> PlanFor(const std::vector<Tensor>& inputs,
                                               const PlanCache::Signature& signature) const;
  // Counts a run at `signature`; true when it is the one to plan.
  bool CountRun(const PlanCache::Signature& signature) const;
  std::vector<Tensor> RunNodeByNode(const std::vector<Tensor>& inputs, const std::vector<Tensor>& direct,
                                    RunProfile* profile) const;
  // Infers the step's outputs in the frame, then runs its kernel (or its subgraphs).
  // Runs one step; true when its outputs were written from symbolic
  // contents, without a kernel.
  bool RunStep(size_t step_index, RunFrame& frame, const std::vector<Tensor>& direct) const;
  // Sets the step's output dtypes and shapes from its symbolic dims; false
  // (nothing set) when one does not evaluate.
  bool ShapesFromSymbols(const NodeStep& step, RunFrame& frame) const;
  // Writes the step's outputs from their symbolic contents; false (nothing
  // written) when one does not evaluate or fit its dtype.
  bool ContentsFromSymbols(const NodeStep& step, RunFrame& frame) const;
  const ShapedKernel& KernelFor(size_t step_index, RunFrame& frame) const;
  std::vector<Tensor> TakeOutputs(RunFrame& frame, const std::vector<Tensor>& direct) const;

  const CompiledModel::Impl& impl_;
  const device::Device& device_;
  std::vector<NodeStep> steps_;       // topological order, no Data or Const
  // The expressions the steps' symbolic dims and contents use; a run
  // evaluates each once: a decoder has a handful (sequence, sequence + past).
  SymbolicSteps symbolic_;
  std::vector<int> readers_;          // value id -> step inputs reading it
  std::vector<int> output_position_;  // value id -> its first position among the graph outputs, or -1
  std::vector<int> constant_values_;  // impl.constants index -> value id
  mutable KernelCache kernels_{kKernelCacheCapacity};
  mutable std::atomic<uint64_t> kernels_built_{0};
  mutable std::atomic<uint64_t> shape_inferences_{0};
  mutable std::atomic<uint64_t> node_by_node_runs_{0}, planned_runs_{0}, plans_compiled_{0};
  mutable FramePool frames_;
  mutable OutputPool outputs_;  // the buffers of the output tensors runs hand out
  std::unordered_set<const void*> constant_data_;  // buffers of impl.constants, which plans share
  mutable PlanCache plans_;
  mutable std::atomic<bool> plannable_{false};
  mutable std::mutex counts_mutex_;
  mutable std::unordered_map<PlanCache::Signature, size_t, KernelCache::KeyHash> run_counts_;
};

}  // namespace ge::runtime
