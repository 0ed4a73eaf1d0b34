#include "runtime/compile/constant_evaluator.h"

#include "ge/error.h"
#include "runtime/execute/host_kernel.h"
#include "runtime/compile/kernel_selection.h"
#include "runtime/compile/tensor_size_cap.h"

namespace ge::runtime {

std::optional<std::vector<Tensor>> KernelConstantEvaluator::Evaluate(const Node& node,
                                                                    const std::vector<Tensor>& inputs) {
  for (const Value* output : node.outputs()) {
    if (!output->shape().IsStatic() || DataTypeSize(output->dtype()) == 0) return std::nullopt;
    CheckTensorSize(node, *output, max_tensor_bytes_);
  }
  SelectedKernel selected;
  try {
    selected = SelectKernel(device_, node);
  } catch (const Error&) {
    return std::nullopt;  // the runtime reports a missing kernel if the node stays in the graph
  }
  return RunKernelOnHost(*selected.kernel, node, inputs);
}

}  // namespace ge::runtime
