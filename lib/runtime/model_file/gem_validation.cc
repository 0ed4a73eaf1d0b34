#include "runtime/model_file/gem_validation.h"

#include <algorithm>
#include <exception>
#include <vector>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/op_schema.h"
#include "graph/shape_accepts.h"
#include "runtime/compile/memory_planner.h"
#include "runtime/compile/storage_plan.h"
#include "runtime/compile/stream_assignment.h"
#include "runtime/compile/tensor_size_cap.h"

namespace ge::runtime {
namespace {

[[noreturn]] void Inconsistent(const std::string& message) { throw Error(ErrorCode::kInvalidModel, message); }

// The node's own inference, over the outputs the file stored. Whatever it
// throws (an attribute out of range, a size that does not fit int64) is a
// refusal of the file that names the node.
void Infer(Node& node) {
  const OpSchema& schema = *OpRegistry::Global().Find(node.op_type());  // VerifyGraph found every op type
  InferContext context(node);
  try {
    schema.infer()(context);
  } catch (const Error& error) {
    const std::string message = error.what();
    Inconsistent(message.find(node.Describe()) == std::string::npos ? node.Describe() + ": " + message : message);
  } catch (const std::exception& error) {
    Inconsistent(fmt::format("{}: shape inference failed: {}", node.Describe(), error.what()));
  }
}

struct TypedShape {
  DataType dtype;
  Shape shape;
};

std::string Describe(DataType dtype, const Shape& shape) {
  return fmt::format("{} {}", DataTypeName(dtype), shape.ToString());
}

// The stored outputs must be what inference gives; they stay as stored (in
// a dynamic model an unknown stored dim stays unknown).
void CheckInferredOutputs(Node& node) {
  std::vector<TypedShape> stored;
  for (const Value* output : node.outputs()) stored.push_back({output->dtype(), output->shape()});
  Infer(node);
  for (size_t i = 0; i < stored.size(); ++i) {
    Value& output = *node.output(i);
    if (output.dtype() != stored[i].dtype || !ShapeAccepts(stored[i].shape, output.shape())) {
      Inconsistent(fmt::format("{}: output {} '{}' is stored as {}, but its inputs and attributes give {}",
                               node.Describe(), i, output.name(), Describe(stored[i].dtype, stored[i].shape),
                               Describe(output.dtype(), output.shape())));
    }
    output.set_shape(std::move(stored[i].shape));
  }
}

// `total` += `bytes` rounded up to the arena's alignment, or false on overflow.
bool AddAligned(uint64_t& total, uint64_t bytes) {
  uint64_t aligned = 0;
  return !__builtin_add_overflow(bytes, kArenaAlignment - 1, &aligned) &&
         !__builtin_add_overflow(total, aligned / kArenaAlignment * kArenaAlignment, &total);
}

}  // namespace

void ValidateLoadedGraph(Graph& graph, uint64_t max_tensor_bytes) {
  for (Node* node : graph.nodes()) CheckInferredOutputs(*node);
  CheckTensorSizes(graph, max_tensor_bytes);
}

void ValidateLoadedPlan(const CompiledModel::Impl& impl, uint64_t max_tensor_bytes) {
  CheckStorage(impl);
  // Every stream runs steps (stream assignment opens one for a step), so
  // there are no more streams than steps; the executor starts a thread per
  // stream and orders steps with a clock per stream.
  if (impl.stream_count > static_cast<int>(std::max<size_t>(1, impl.steps.size()))) {
    Inconsistent(fmt::format("invalid stream plan: {} streams for {} steps", impl.stream_count, impl.steps.size()));
  }
  CheckStreams(impl);
  uint64_t placed = 0;  // everything the arena holds, side by side
  bool fits = true;
  for (size_t id = 0; id < impl.values.size(); ++id) {
    if (impl.storage[id].kind == StorageKind::kArena) fits &= AddAligned(placed, ValueBytes(*impl.values[id]));
  }
  for (const Step& step : impl.steps) {
    if (step.workspace_bytes > max_tensor_bytes) {
      Inconsistent(fmt::format("invalid memory plan: {}: a workspace of {} bytes is above the cap (ge.maxTensorBytes) "
                               "of {} bytes",
                               step.node->Describe(), step.workspace_bytes, max_tensor_bytes));
    }
    fits &= AddAligned(placed, step.workspace_bytes);
  }
  if (fits && impl.memory.arena_bytes > placed) {
    Inconsistent(fmt::format("invalid memory plan: an arena of {} bytes, but all the values and workspaces placed in "
                             "it take {} bytes side by side",
                             impl.memory.arena_bytes, placed));
  }
  CheckPlacement(impl);
}

}  // namespace ge::runtime
