// Runs a model whose shapes are not all static after compilation (unknown
// input dims, data-dependent output shapes).
//
// There is no plan: each run copies the optimized graph, gives its inputs the
// shapes of the tensors passed in, and walks the nodes in topological order.
// Each node is inferred with the tensors computed so far visible as constant
// inputs (schemas compute exact shapes from constant inputs: Reshape of a
// computed shape, NonZero, ...), its outputs are allocated, and its kernel
// (built for those shapes, cached) runs on host tensors. A tensor is freed
// after its last reader. Runs share nothing but the kernel cache, so any
// number of threads may run one model at once.
#pragma once

#include <vector>

#include "device/device.h"
#include "graph/op_schema.h"
#include "runtime/execution_plan.h"
#include "runtime/kernel_cache.h"

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
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const;

  // Kernels cached so far (for tests).
  size_t cached_kernels() const { return kernels_.size(); }

 private:
  struct NodeStep {
    const Node* node = nullptr;  // in impl.graph
    size_t graph_index = 0;      // position in impl.graph->nodes(), which a Clone() keeps
    const OpSchema* schema = nullptr;
    std::vector<int> inputs;   // value ids; -1 for an absent optional input
    std::vector<int> outputs;  // value ids
  };
  // Where a value lives in a copy of the graph: node position and output.
  struct ValueOrigin {
    size_t graph_index = 0;
    size_t output = 0;
  };

  std::shared_ptr<const ShapedKernel> KernelFor(size_t step_index, const Node& node) const;

  const CompiledModel::Impl& impl_;
  const device::Device& device_;
  std::vector<NodeStep> steps_;         // topological order, no Data or Const
  std::vector<ValueOrigin> origins_;    // value id -> where it is in a copy of the graph
  std::vector<int> readers_;            // value id -> step inputs reading it
  std::vector<bool> is_output_;         // value id -> a graph output (kept to the end of a run)
  std::vector<int> constant_values_;    // impl.constants index -> value id
  mutable KernelCache kernels_{kKernelCacheCapacity};
};

}  // namespace ge::runtime
