#include "runtime/compile/storage_plan.h"

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "ge/error.h"
#include "runtime/compile/memory_planner.h"
#include "runtime/compile/stream_assignment.h"

namespace ge::runtime {
namespace {

constexpr int kNoRequest = -1;

// Storage of the values no step computes: graph inputs and constants.
void AssignSources(CompiledModel::Impl& impl) {
  for (size_t position = 0; position < impl.input_values.size(); ++position) {
    impl.storage[impl.input_values[position]] = Storage{StorageKind::kGraphInput, static_cast<uint32_t>(position), 0};
  }
  uint32_t constant = 0;
  size_t value_id = 0;
  for (const Node* node : impl.nodes) {
    if (node->op_type() == "Const") impl.storage[value_id] = Storage{StorageKind::kConstant, constant++, 0};
    value_id += node->num_outputs();
  }
}

// Graph outputs computed by a step into a buffer of their own are written
// straight into the run's output tensor (the first position, when a value is
// output twice). Returns which values got that.
std::vector<bool> AssignOutputsInPlace(CompiledModel::Impl& impl) {
  std::vector<bool> computed_in_place(impl.values.size(), false);
  for (const Step& step : impl.steps) {
    if (step.is_view) continue;
    for (int output : step.outputs) computed_in_place[output] = true;
  }
  std::vector<bool> in_output(impl.values.size(), false);
  for (size_t position = 0; position < impl.output_values.size(); ++position) {
    int value = impl.output_values[position];
    if (!computed_in_place[value] || in_output[value]) continue;
    impl.storage[value] = Storage{StorageKind::kGraphOutput, static_cast<uint32_t>(position), 0};
    in_output[value] = true;
  }
  return in_output;
}

// Ops whose CPU kernels compute output element i from element i of each
// full-shape input only, reading it before writing the output element
// (UnaryKernel in elementwise_unary.h, which the activations of activation.cc
// use too; BinaryKernel in elementwise_binary.cc; ClipByValue), so their
// output may take the storage of such an input. Ops that change the dtype
// (comparisons, IsNan, Cast) never qualify: the output must match the input.
bool ComputesInPlace(const std::string& op_type) {
  static const std::set<std::string> ops = {
      // elementwise_unary.cc
      "Relu", "Abs", "Neg", "Sign", "Ceil", "Floor", "Round", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log",
      "Reciprocal", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Gelu",
      "Invert", "LogicalNot", "ClipByValue",
      // activation.cc
      "LeakyRelu", "Elu", "Selu", "Celu", "ThresholdedRelu", "HardSigmoid", "HardSwish", "Mish", "Softplus",
      "Softsign", "Shrink",
      // elementwise_binary.cc
      "Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum", "Mod", "FloorMod", "PRelu", "BitwiseAnd", "BitwiseOr",
      "BitwiseXor", "LeftShift", "RightShift", "LogicalAnd", "LogicalOr", "LogicalXor"};
  return ops.count(op_type) != 0;
}

// The request that owns the bytes of request r.
int RootOf(const std::vector<BufferRequest>& requests, int r) {
  while (requests[r].alias_of >= 0) r = requests[r].alias_of;
  return r;
}

// In-place execution: an elementwise step whose input (same shape and dtype
// as its output, in the arena) is used for the last time by this step writes
// its output over that input, which then needs no bytes of its own. "Last
// time" covers every view of the input's bytes, and with several streams
// every other use must happen before the step. Graph inputs and constants
// have no request, so they are never overwritten.
void ComputeInPlace(const CompiledModel::Impl& impl, const std::vector<int>& request_of,
                    std::vector<BufferRequest>& requests, const HappensBefore& happens_before) {
  std::vector<std::vector<int>> uses(requests.size());  // by root request
  for (size_t r = 0; r < requests.size(); ++r) {
    std::vector<int>& root_uses = uses[RootOf(requests, static_cast<int>(r))];
    root_uses.insert(root_uses.end(), requests[r].uses.begin(), requests[r].uses.end());
    root_uses.push_back(requests[r].last_use);  // graph outputs: after the last step
  }
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const Step& step = impl.steps[s];
    if (step.is_view || step.outputs.size() != 1 || !ComputesInPlace(step.node->op_type())) continue;
    int output = step.outputs[0];
    if (request_of[output] == kNoRequest) continue;  // written into the caller's output tensor
    const Value& out = *impl.values[output];
    size_t candidates = step.node->op_type() == "ClipByValue" ? 1 : step.inputs.size();
    for (size_t j = 0; j < candidates; ++j) {
      int input = step.inputs[j];
      if (input < 0 || request_of[input] == kNoRequest) continue;
      const Value& in = *impl.values[input];
      if (in.dtype() != out.dtype() || in.shape() != out.shape()) continue;
      int root = RootOf(requests, request_of[input]);
      bool shared_otherwise = false;  // another operand reads the same bytes in another shape
      for (int other : step.inputs) {
        if (other >= 0 && other != input && request_of[other] != kNoRequest &&
            RootOf(requests, request_of[other]) == root) {
          shared_otherwise = true;
        }
      }
      const int now = static_cast<int>(s);
      bool last_use = std::all_of(uses[root].begin(), uses[root].end(), [&](int use) {
        return use == now || (use < now && (!happens_before || happens_before(use, now)));
      });
      if (shared_otherwise || !last_use) continue;
      int own = RootOf(requests, request_of[output]);
      requests[own].alias_of = request_of[input];
      uses[root].insert(uses[root].end(), uses[own].begin(), uses[own].end());
      break;
    }
  }
}

// The planner's view of a laid-out model: one buffer request per arena value
// (views point at what they view) and per workspace, with lifetimes and uses
// in step indices.
struct ArenaRequests {
  std::vector<BufferRequest> requests;
  std::vector<int> request_of;         // by value id; kNoRequest outside the arena
  std::vector<int> workspace_request;  // by step; kNoRequest without a workspace
};

// `elsewhere[v]`: the step computing value v writes it outside the arena
// (into a graph output).
ArenaRequests CollectRequests(const CompiledModel::Impl& impl, const std::vector<bool>& elsewhere) {
  ArenaRequests arena;
  auto& [requests, request_of, workspace_request] = arena;
  request_of.assign(impl.values.size(), kNoRequest);
  workspace_request.assign(impl.steps.size(), kNoRequest);
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const Step& step = impl.steps[s];
    int now = static_cast<int>(s);
    for (int input : step.inputs) {
      if (input < 0 || request_of[input] == kNoRequest) continue;
      requests[request_of[input]].last_use = now;
      requests[request_of[input]].uses.push_back(now);
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      int output = step.outputs[i];
      if (elsewhere[output]) continue;
      if (step.is_view) {
        int viewed = step.inputs[step.kernel->AliasedInput(i)];
        if (request_of[viewed] != kNoRequest) {
          request_of[output] = static_cast<int>(requests.size());
          requests.push_back(BufferRequest{0, now, now, request_of[viewed], {now}});
        }
        continue;
      }
      request_of[output] = static_cast<int>(requests.size());
      requests.push_back(BufferRequest{ValueBytes(*impl.values[output]), now, now, -1, {now}});
    }
    if (step.workspace_bytes > 0) {
      workspace_request[s] = static_cast<int>(requests.size());
      requests.push_back(BufferRequest{step.workspace_bytes, now, now, -1, {now}});
    }
  }
  // Graph outputs not written in place are copied out after the last step.
  int after_last_step = static_cast<int>(impl.steps.size());
  for (int value : impl.output_values) {
    if (request_of[value] != kNoRequest) requests[request_of[value]].last_use = after_last_step;
  }
  return arena;
}

// The order steps of several streams run in (events); none with one stream,
// where step order is run order.
HappensBefore StepsHappenBefore(const CompiledModel::Impl& impl) {
  if (impl.stream_count <= 1) return nullptr;
  auto order = std::make_shared<const StepOrder>(impl.steps, impl.stream_count);
  return [order](int a, int b) { return order->HappensBefore(a, b); };
}

}  // namespace

size_t ValueBytes(const Value& value) {
  return static_cast<size_t>(value.shape().NumElements()) * DataTypeSize(value.dtype());
}

void PlanStorage(CompiledModel::Impl& impl) {
  impl.storage.assign(impl.values.size(), Storage{});
  AssignSources(impl);
  std::vector<bool> in_output = AssignOutputsInPlace(impl);
  for (const Step& step : impl.steps) {  // views share the storage of what they view
    if (!step.is_view) continue;
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      if (!in_output[step.outputs[i]]) impl.storage[step.outputs[i]] = impl.storage[step.inputs[step.kernel->AliasedInput(i)]];
    }
  }
  auto [requests, request_of, workspace_request] = CollectRequests(impl, in_output);
  HappensBefore happens_before = StepsHappenBefore(impl);
  // In-place execution is reuse too: off with ge.exec.disableReuseMemory,
  // and not counted in the bytes without reuse.
  size_t no_reuse_bytes = PlanMemory(requests, false).no_reuse_bytes;
  if (!impl.settings.disable_reuse_memory) ComputeInPlace(impl, request_of, requests, happens_before);

  MemoryPlan plan = PlanMemory(requests, !impl.settings.disable_reuse_memory, happens_before);
  for (size_t value = 0; value < impl.values.size(); ++value) {
    if (request_of[value] != kNoRequest) {
      impl.storage[value] = Storage{StorageKind::kArena, 0, plan.offsets[request_of[value]]};
    }
  }
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    if (workspace_request[s] != kNoRequest) impl.steps[s].workspace_offset = plan.offsets[workspace_request[s]];
  }

  impl.memory = MemorySummary{};
  for (const Tensor& constant : impl.constants) impl.memory.const_bytes += constant.nbytes();
  impl.memory.arena_bytes = plan.arena_bytes;
  impl.memory.no_reuse_bytes = no_reuse_bytes;
  impl.memory.lower_bound_bytes = plan.lower_bound_bytes;
  impl.memory.placement_strategy = plan.strategy;
}

void GrowWorkspaces(CompiledModel::Impl& impl) {
  auto align = [](size_t bytes) { return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment; };
  // Steps of one stream run one at a time, so they can share a region; steps
  // of different streams may run at once, so each stream gets its own.
  std::vector<size_t> region_bytes(static_cast<size_t>(std::max(1, impl.stream_count)), 0);
  for (const Step& step : impl.steps) {
    size_t needed = step.kernel->WorkspaceBytes();
    if (needed > step.workspace_bytes) region_bytes[step.stream] = std::max(region_bytes[step.stream], align(needed));
  }
  std::vector<size_t> region_offset(region_bytes.size(), 0);
  size_t end = align(impl.memory.arena_bytes);
  for (size_t k = 0; k < region_bytes.size(); ++k) {
    region_offset[k] = end;
    end += region_bytes[k];
  }
  for (Step& step : impl.steps) {
    size_t needed = step.kernel->WorkspaceBytes();
    if (needed <= step.workspace_bytes) continue;
    step.workspace_offset = region_offset[step.stream];
    step.workspace_bytes = needed;
  }
  if (end > align(impl.memory.arena_bytes)) impl.memory.arena_bytes = end;
}

void CheckStorage(const CompiledModel::Impl& impl) {
  auto fail = [](const std::string& message) { throw Error(ErrorCode::kInvalidModel, "invalid memory plan: " + message); };
  if (impl.storage.size() != impl.values.size()) {
    fail(fmt::format("{} storage entries for {} values", impl.storage.size(), impl.values.size()));
  }
  const size_t arena = impl.memory.arena_bytes;
  auto fits = [arena](uint64_t offset, uint64_t bytes) { return offset <= arena && bytes <= arena - offset; };

  for (size_t id = 0; id < impl.values.size(); ++id) {
    const Value& value = *impl.values[id];
    const Storage& storage = impl.storage[id];
    size_t bytes = ValueBytes(value);
    size_t capacity = 0;
    switch (storage.kind) {
      case StorageKind::kGraphInput:
        if (storage.index < impl.inputs.size()) capacity = ValueBytes(*impl.values[impl.input_values[storage.index]]);
        break;
      case StorageKind::kConstant:
        if (storage.index < impl.constants.size()) capacity = impl.constants[storage.index].nbytes();
        break;
      case StorageKind::kGraphOutput:
        if (storage.index < impl.outputs.size()) capacity = ValueBytes(*impl.values[impl.output_values[storage.index]]);
        break;
      case StorageKind::kArena:
        capacity = fits(storage.offset, bytes) ? bytes : 0;
        // Kernels load whole elements: an offset between them is a misaligned
        // load (the planner places every value at a multiple of kArenaAlignment).
        if (storage.offset % std::max<size_t>(1, DataTypeSize(value.dtype())) != 0) {
          fail(fmt::format("value '{}' ({}) at arena offset {} is not aligned to its elements", value.name(),
                           DataTypeName(value.dtype()), storage.offset));
        }
        break;
      default:
        fail(fmt::format("value '{}' has an unknown storage kind {}", value.name(), static_cast<int>(storage.kind)));
    }
    if (capacity < bytes) fail(fmt::format("value '{}' ({} bytes) does not fit its storage", value.name(), bytes));
  }
  for (size_t position = 0; position < impl.input_values.size(); ++position) {
    if (impl.storage[impl.input_values[position]] != Storage{StorageKind::kGraphInput, uint32_t(position), 0}) {
      fail(fmt::format("graph input '{}' is not read from the caller's tensor", impl.inputs[position].name));
    }
  }
  for (const Step& step : impl.steps) {
    if (!fits(step.workspace_offset, step.workspace_bytes)) {
      fail(fmt::format("{}: workspace of {} bytes at {} is outside the {}-byte arena", step.node->Describe(),
                       step.workspace_bytes, step.workspace_offset, arena));
    }
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      const Storage& storage = impl.storage[step.outputs[i]];
      bool shares_viewed = step.is_view && storage == impl.storage[step.inputs[step.kernel->AliasedInput(i)]];
      bool writable = !step.is_view && (storage.kind == StorageKind::kArena || storage.kind == StorageKind::kGraphOutput);
      if (!shares_viewed && !writable) {
        fail(fmt::format("{}: output {} has a storage its kernel cannot use", step.node->Describe(), i));
      }
    }
  }
}

void CheckPlacement(const CompiledModel::Impl& impl) {
  std::vector<bool> elsewhere(impl.values.size());
  for (size_t id = 0; id < impl.values.size(); ++id) elsewhere[id] = impl.storage[id].kind != StorageKind::kArena;
  auto [requests, request_of, workspace_request] = CollectRequests(impl, elsewhere);
  HappensBefore happens_before = StepsHappenBefore(impl);
  // The in-place outputs the planner could have made share their input's
  // bytes where the file put them there (with reuse off it put none there).
  ComputeInPlace(impl, request_of, requests, happens_before);
  std::vector<size_t> offsets(requests.size(), 0);
  std::vector<std::string> names(requests.size());
  for (size_t id = 0; id < impl.values.size(); ++id) {
    if (request_of[id] == kNoRequest) continue;
    offsets[request_of[id]] = impl.storage[id].offset;
    names[request_of[id]] = fmt::format("value '{}'", impl.values[id]->name());
  }
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    if (workspace_request[s] == kNoRequest) continue;
    offsets[workspace_request[s]] = impl.steps[s].workspace_offset;
    names[workspace_request[s]] = fmt::format("the workspace of {}", impl.steps[s].node->Describe());
  }
  if (auto clash = FindPlacementClash(std::move(requests), offsets, happens_before)) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("invalid memory plan: {} and {} share arena bytes while both are in use",
                            names[clash->first], names[clash->second]));
  }
}

}  // namespace ge::runtime
