#include "runtime/execute/host_kernel.h"

namespace ge::runtime {

std::vector<Tensor> RunKernelOnHost(const device::Kernel& kernel, const Node& node, const std::vector<Tensor>& inputs) {
  std::vector<device::TensorView> input_views(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].empty()) continue;  // absent optional input
    input_views[i] = device::TensorView{inputs[i].dtype(), &inputs[i].shape(), const_cast<void*>(inputs[i].data())};
  }
  std::vector<Tensor> results;
  bool computes = false;  // false when every output is a view of an input
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    const Value& output = *node.output(i);
    int viewed = kernel.AliasedInput(i);
    if (viewed >= 0 && static_cast<size_t>(viewed) < inputs.size() && !inputs[viewed].empty()) {
      results.push_back(inputs[viewed].Reshaped(output.shape()));
    } else {
      results.emplace_back(output.dtype(), output.shape());
      computes = true;
    }
  }
  if (!computes) return results;

  std::vector<device::TensorView> output_views;
  for (Tensor& result : results) output_views.push_back({result.dtype(), &result.shape(), result.data()});
  // A uint8 tensor is a convenient 64-byte aligned scratch buffer.
  size_t workspace_bytes = kernel.WorkspaceBytes();
  Tensor workspace = workspace_bytes > 0 ? Tensor(DataType::kUInt8, Shape{static_cast<int64_t>(workspace_bytes)})
                                         : Tensor();
  device::KernelContext ctx;
  ctx.inputs = input_views;
  ctx.outputs = output_views;
  ctx.workspace = workspace.data();
  kernel.Run(ctx);
  return results;
}

}  // namespace ge::runtime
