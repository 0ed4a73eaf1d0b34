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
  // Folding never allocates a tensor over max_tensor_bytes (ge.maxTensorBytes).
  KernelConstantEvaluator(const device::Device& device, uint64_t max_tensor_bytes)
      : device_(device), max_tensor_bytes_(max_tensor_bytes) {}

  // nullopt when the device has no kernel for the node or an output shape is
  // not static; an output over the cap is kInvalidModel (tensor_size_cap.h);
  // errors of the kernel itself propagate.
  std::optional<std::vector<Tensor>> Evaluate(const Node& node, const std::vector<Tensor>& inputs) override;

 private:
  const device::Device& device_;
  uint64_t max_tensor_bytes_;
};

}  // namespace ge::runtime
