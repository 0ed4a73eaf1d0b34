// Constant folding's evaluator: runs a node on host tensors with the device's
// own kernel, so a folded constant is bit-identical to what the node would
// have computed at run time.
#pragma once

#include "device/device.h"
#include "passes/pass.h"

namespace ge::runtime {

class KernelConstantEvaluator final : public ConstantEvaluator {
 public:
  // The device must keep its memory on the host (device::Device::host_memory()).
  explicit KernelConstantEvaluator(const device::Device& device) : device_(device) {}

  // nullopt when the device has no kernel for the node or an output shape is
  // not static; errors of the kernel itself propagate.
  std::optional<std::vector<Tensor>> Evaluate(const Node& node, const std::vector<Tensor>& inputs) override;

 private:
  const device::Device& device_;
};

}  // namespace ge::runtime
