// CompiledModel::Run: checks the inputs, leases an arena, points every value
// at its storage and runs the steps in order on the calling thread. A dynamic
// model hands the checked inputs to its DynamicExecutor instead.
#include <cstring>

#include <fmt/format.h>

#include "ge/error.h"
#include "runtime/dynamic_executor.h"
#include "runtime/execution_plan.h"
#include "runtime/intra_op_threads.h"

namespace ge {
namespace {

using runtime::Storage;
using runtime::StorageKind;

// Unknown dims (and an unknown rank) take anything; for a static model this is ==.
bool ShapeAccepts(const Shape& expected, const Shape& got) {
  if (expected.unknown_rank()) return true;
  if (expected.rank() != got.rank()) return false;
  for (size_t i = 0; i < expected.rank(); ++i) {
    if (expected.dim(i) != Shape::kUnknownDim && expected.dim(i) != got.dim(i)) return false;
  }
  return true;
}

void CheckInputs(const CompiledModel::Impl& impl, const std::vector<Tensor>& inputs) {
  if (inputs.size() != impl.inputs.size()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("model '{}' takes {} inputs, got {}", impl.graph->name(),
                                                         impl.inputs.size(), inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorInfo& expected = impl.inputs[i];
    const Tensor& got = inputs[i];
    if (got.dtype() != expected.dtype) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("input '{}' (#{}): expected dtype {}, got {}", expected.name,
                                                           i, DataTypeName(expected.dtype), DataTypeName(got.dtype())));
    }
    if (!ShapeAccepts(expected.shape, got.shape())) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("input '{}' (#{}): expected shape {}, got {}", expected.name, i,
                              expected.shape.ToString(), got.shape().ToString()));
    }
    if (got.data() == nullptr && got.nbytes() > 0) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("input '{}' (#{}) has no data", expected.name, i));
    }
  }
}

// Inputs and constants are only read: kernels never write their inputs, and
// views of them are never run.
void* Address(const Storage& storage, const std::vector<Tensor>& inputs, const std::vector<Tensor>& constants,
              std::byte* arena, std::vector<Tensor>& outputs) {
  switch (storage.kind) {
    case StorageKind::kGraphInput:
      return const_cast<void*>(inputs[storage.index].data());
    case StorageKind::kConstant:
      return const_cast<void*>(constants[storage.index].data());
    case StorageKind::kArena:
      return arena + storage.offset;
    case StorageKind::kGraphOutput:
      return outputs[storage.index].data();
  }
  throw Error(ErrorCode::kInternal, "unknown storage kind");
}

}  // namespace

std::vector<Tensor> CompiledModel::Run(const std::vector<Tensor>& inputs) const {
  const Impl& impl = *impl_;
  CheckInputs(impl, inputs);
  runtime::ScopedIntraOpThreads threads(impl.settings.intra_op_threads);
  if (impl.dynamic) return impl.dynamic->Run(inputs);

  runtime::ArenaPool::Lease arena = impl.arenas->Acquire();
  std::vector<Tensor> outputs;
  outputs.reserve(impl.outputs.size());
  for (const TensorInfo& info : impl.outputs) outputs.emplace_back(info.dtype, info.shape);

  std::vector<void*> address(impl.values.size());
  for (size_t id = 0; id < impl.values.size(); ++id) {
    address[id] = Address(impl.storage[id], inputs, impl.constants, arena.data(), outputs);
  }
  auto view_of = [&](int id) {
    if (id < 0) return device::TensorView{};  // absent optional input
    const Value& value = *impl.values[id];
    return device::TensorView{value.dtype(), &value.shape(), address[id]};
  };

  std::vector<device::TensorView> input_views, output_views;
  for (const runtime::Step& step : impl.steps) {
    if (step.is_view) continue;
    input_views.clear();
    output_views.clear();
    for (int id : step.inputs) input_views.push_back(view_of(id));
    for (int id : step.outputs) output_views.push_back(view_of(id));
    device::KernelContext ctx;
    ctx.inputs = input_views;
    ctx.outputs = output_views;
    ctx.workspace = step.workspace_bytes > 0 ? arena.data() + step.workspace_offset : nullptr;
    step.kernel->Run(ctx);
  }

  for (size_t position = 0; position < outputs.size(); ++position) {
    int id = impl.output_values[position];
    bool written_in_place = impl.storage[id] == Storage{StorageKind::kGraphOutput, static_cast<uint32_t>(position), 0};
    if (written_in_place || outputs[position].nbytes() == 0) continue;
    std::memcpy(outputs[position].data(), address[id], outputs[position].nbytes());
  }
  return outputs;
}

}  // namespace ge
