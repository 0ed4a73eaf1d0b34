// Constants that only a kernel's packed copy serves: every use of the value is
// an input its kernel re-laid-out into memory of its own (Kernel::PackedInputs),
// and the value is no graph output. A run never reads such a constant's bytes,
// so a .gem file stores them apart from what runs read, and a model compiled
// with ge.exec.releasePackedConstants=1 frees them.
#pragma once

#include <set>
#include <utility>
#include <vector>

#include "runtime/execution_plan.h"

namespace ge::runtime {

class PackedConstants {
 public:
  // Records the inputs the kernel of `step` packed.
  void AddStep(const Step& step);
  // The constant inputs of `node` that the recorded kernels now serve alone.
  std::vector<const Value*> ServedInputsOf(const Node& node, const Graph& graph) const;
  // The same over every Const node of `nodes`.
  std::vector<const Value*> ServedAmong(const std::vector<const Node*>& nodes, const Graph& graph) const;

 private:
  bool Served(const Value& value, const Graph& graph) const;

  std::set<std::pair<const Node*, int>> packed_uses_;  // (consumer, input index)
};

// Every constant the kernels of `impl` serve alone.
std::vector<const Value*> PackedAwayConstants(const CompiledModel::Impl& impl);

// Frees the bytes of `constant` (one that PackedConstants reports) and hands
// free heap pages back to the system: its Const node and the model's constant
// keep dtype and shape without data, and the model counts it in
// released_constants, which Save refuses.
void ReleaseConstantBytes(CompiledModel::Impl& impl, const Value& constant);

}  // namespace ge::runtime
