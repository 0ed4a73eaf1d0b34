#include "device/acl/emulator/compiled_op.h"

#include <fmt/core.h>

#include <cstring>

#include "device/acl/emulator/emulator_state.h"
#include "device/device.h"
#include "graph/op_schema.h"

namespace ge::acl_emulator {
namespace {

// Gives `value` the described output's shape, or throws OutputMismatch.
void MatchOutput(const Node& node, size_t index, Value& value, const TensorSpec& described) {
  const Shape& inferred = value.shape();
  bool fits = value.dtype() == described.dtype;
  if (fits && !inferred.unknown_rank()) {
    fits = inferred.rank() == described.shape.rank();
    for (size_t d = 0; fits && d < inferred.rank(); ++d) {
      fits = inferred.dim(d) == Shape::kUnknownDim || inferred.dim(d) == described.shape.dim(d);
    }
  }
  if (!fits) {
    throw OutputMismatch(ErrorCode::kInvalidArgument,
                         fmt::format("{}: output {} is described as {} {}, but the op computes {} {}", node.Describe(),
                                     index, DataTypeName(described.dtype), described.shape.ToString(),
                                     DataTypeName(value.dtype()), inferred.ToString()));
  }
  value.set_shape(described.shape);  // fills the dims that depend on input values
}

}  // namespace

std::shared_ptr<const CompiledOp> CompiledOp::Compile(const std::string& op_type, const std::vector<TensorSpec>& inputs,
                                                      const std::vector<TensorSpec>& outputs, const AttrMap& attrs) {
  const OpSchema* schema = OpRegistry::Global().Find(op_type);
  if (schema == nullptr) {
    throw Error(ErrorCode::kNotFound, fmt::format("op type '{}' is not found: ge has no schema for it (see "
                                                  "docs/op-set.md for the op set)",
                                                  op_type));
  }
  std::shared_ptr<CompiledOp> op(new CompiledOp);
  op->graph_ = std::make_unique<Graph>(op_type);
  std::vector<Value*> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorSpec& input = inputs[i];
    const std::string name = fmt::format("x{}", i);
    values.push_back(!input.present   ? nullptr
                     : input.constant ? op->graph_->AddConstant(name, *input.constant)
                                      : op->graph_->AddInput(name, input.dtype, input.shape));
  }
  const size_t num_outputs = outputs.size();
  Node* node = op->graph_->AddNode(op_type, op_type, values, num_outputs);
  for (const auto& [name, value] : attrs.entries()) node->attrs().Set(name, value);
  schema->NormalizeAttrs(*node);
  schema->CheckArity(*node);
  InferContext context(*node);
  schema->infer()(context);
  schema->CheckDtypes(*node);
  for (size_t i = 0; i < num_outputs; ++i) MatchOutput(*node, i, *node->output(i), outputs[i]);

  const DataType selection_dtype = node->input(0) != nullptr ? node->input(0)->dtype()
                                   : num_outputs > 0         ? node->output(0)->dtype()
                                                             : DataType::kUndefined;
  const device::KernelRegistry& kernels = device::CpuDevice().kernels();
  const device::KernelDef* def = kernels.Find(op_type, selection_dtype);
  if (def == nullptr) {
    const ErrorCode code = kernels.Supports(op_type) ? ErrorCode::kUnsupported : ErrorCode::kNotFound;
    throw Error(code,
                fmt::format("op type '{}' is not found for dtype {}: ge's CPU device has {} kernel for it", op_type,
                            DataTypeName(selection_dtype), code == ErrorCode::kNotFound ? "no" : "another dtype's"));
  }
  op->kernel_ = def->factory(*node);
  if (!op->kernel_) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: the kernel factory returned none", node->Describe()));
  }
  op->node_ = node;
  return op;
}

void CompiledOp::Run(std::span<void* const> inputs, std::span<void* const> outputs) const {
  std::vector<device::TensorView> input_views;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value* value = node_->input(i);
    if (value == nullptr) {
      input_views.emplace_back();
      continue;
    }
    const Tensor* constant = value->constant();
    void* data = constant != nullptr ? const_cast<void*>(constant->data()) : inputs[i];  // kernels only read inputs
    input_views.push_back(device::TensorView{value->dtype(), &value->shape(), data});
  }
  std::vector<device::TensorView> output_views;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Value* value = node_->output(i);
    output_views.push_back(device::TensorView{value->dtype(), &value->shape(), outputs[i]});
  }
  const size_t workspace_bytes = kernel_->WorkspaceBytes();
  AlignedMemory workspace = workspace_bytes > 0 ? AllocateAligned(workspace_bytes) : nullptr;
  if (workspace_bytes > 0 && !workspace) {
    throw Error(ErrorCode::kInternal,
                fmt::format("{}: out of memory for a workspace of {} bytes", node_->Describe(), workspace_bytes));
  }
  device::KernelContext context{input_views, output_views, workspace.get(), nullptr};
  kernel_->Run(context);
  // A view kernel (Reshape, Identity, ...) leaves its output in the input's buffer.
  for (size_t i = 0; i < outputs.size(); ++i) {
    const int source = kernel_->AliasedInput(i);
    if (source >= 0 && input_views[source].data != outputs[i]) {
      const Value* value = node_->output(i);
      std::memmove(outputs[i], input_views[source].data,
                   static_cast<size_t>(value->shape().NumElements()) * DataTypeSize(value->dtype()));
    }
  }
}

}  // namespace ge::acl_emulator
