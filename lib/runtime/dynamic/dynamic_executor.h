// Runs a model whose shapes are not all static after compilation (unknown
// input dims, data-dependent output shapes).
//
// A run first looks for a static plan for its input shapes (plan_cache.h):
// when every shape follows from the input shapes alone (symbolic batch or
// sequence dims, Reshape targets computed with Shape), the model compiled for
// those shapes (CompileGraph on a copy whose inputs have them) runs like any
// static model. The first signature whose compile still leaves a shape
// unknown (NonZero, a Reshape to a graph input's values) shows that shapes
// depend on data, and the model stops planning; a model with control flow
// (or on a device other than the CPU, which CompileGraph targets) never
// plans. Those run node by node:
//
// Each run copies the optimized graph, gives its inputs the
// shapes of the tensors passed in, and walks the nodes in topological order.
// Each node is inferred with the tensors computed so far visible as constant
// inputs (schemas compute exact shapes from constant inputs: Reshape of a
// computed shape, NonZero, ...), its outputs are allocated, and its kernel
// (built for those shapes, cached) runs on host tensors. A tensor is freed
// after its last reader. Control-flow nodes run their compiled subgraphs
// instead, and their outputs take the shapes the subgraphs produce. Runs
// share nothing but the kernel cache, so any number of threads may run one
// model at once.
#pragma once

#include <atomic>
#include <memory>
#include <unordered_set>
#include <vector>

#include "device/device.h"
#include "graph/op_schema.h"
#include "runtime/dynamic/control_flow.h"
#include "runtime/execution_plan.h"
#include "runtime/dynamic/kernel_cache.h"
#include "runtime/dynamic/plan_cache.h"

namespace ge::runtime {

class DynamicExecutor {
 public:
  // Kernels built for distinct shapes that a model keeps.
  static constexpr size_t kKernelCacheCapacity = 1024;

  // `impl` has its values numbered (NumberValues) and outlives the executor.
  // Throws ge::Error (kUnsupported) naming the node when the device has no
  // kernel for a node's op type and dtype.
  DynamicExecutor(const CompiledModel::Impl& impl, const device::Device& device);

  // Inputs already checked against impl.inputs. Throws ge::Error
  // (kInvalidArgument) naming the node whose output shape cannot be
  // determined, and the errors of inference and kernels.
  // `profile`, when given, gets every step (its start times relative to the
  // caller's clock are set by CompiledModel::Run).
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs, RunProfile* profile = nullptr) const;

  // Kernels cached so far (for tests).
  size_t cached_kernels() const { return kernels_.size(); }
  // The static plans per input-shape signature (for tests).
  const PlanCache& plans() const { return plans_; }
  // Whether runs still look for a static plan.
  bool plans_shapes() const { return plannable_.load(); }

 private:
  struct NodeStep {
    const Node* node = nullptr;  // in impl.graph
    size_t graph_index = 0;      // position in impl.graph->nodes(), which a Clone() keeps
    const OpSchema* schema = nullptr;
    std::vector<int> inputs;   // value ids; -1 for an absent optional input
    std::vector<int> outputs;  // value ids
    // If, Loop, Scan: run their subgraphs instead of inference and a kernel.
    std::shared_ptr<const ControlFlowOp> control_flow;
  };
  // Where a value lives in a copy of the graph: node position and output.
  struct ValueOrigin {
    size_t graph_index = 0;
    size_t output = 0;
  };

  // The cached plan for these input shapes, a new one, or nullptr when the
  // model's shapes depend on data (planning then stops).
  std::shared_ptr<const CompiledModel> PlanFor(const std::vector<Tensor>& inputs,
                                               const PlanCache::Signature& signature) const;
  std::vector<Tensor> RunNodeByNode(const std::vector<Tensor>& inputs, RunProfile* profile) const;
  std::shared_ptr<const ShapedKernel> KernelFor(size_t step_index, const Node& node) const;
  // Infers the node's outputs and runs its kernel (or its subgraphs); the
  // node (in the run's graph copy) takes the outputs' shapes.
  std::vector<Tensor> RunStep(size_t step_index, Node& node, const std::vector<Tensor>& inputs,
                              const InferContext::InputConstants& known) const;

  const CompiledModel::Impl& impl_;
  const device::Device& device_;
  std::vector<NodeStep> steps_;         // topological order, no Data or Const
  std::vector<ValueOrigin> origins_;    // value id -> where it is in a copy of the graph
  std::vector<int> readers_;            // value id -> step inputs reading it
  std::vector<bool> is_output_;         // value id -> a graph output (kept to the end of a run)
  std::vector<int> constant_values_;    // impl.constants index -> value id
  mutable KernelCache kernels_{kKernelCacheCapacity};
  std::unordered_set<const void*> constant_data_;  // buffers of impl.constants, which plans share
  mutable PlanCache plans_;
  mutable std::atomic<bool> plannable_{false};
};

}  // namespace ge::runtime
