#include "runtime/compile/packed_constants.h"

#include <malloc.h>

#include <algorithm>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::runtime {

void PackedConstants::AddStep(const Step& step) {
  for (const device::Kernel::PackedInput& packed : step.kernel->PackedInputs()) {
    packed_uses_.insert({step.node, static_cast<int>(packed.input)});
  }
}

bool PackedConstants::Served(const Value& value, const Graph& graph) const {
  if (value.constant() == nullptr || value.uses().empty()) return false;
  const std::vector<Value*>& outputs = graph.outputs();
  if (std::find(outputs.begin(), outputs.end(), &value) != outputs.end()) return false;
  return std::all_of(value.uses().begin(), value.uses().end(),
                     [&](const Use& use) { return packed_uses_.count({use.node, use.input_index}) != 0; });
}

std::vector<const Value*> PackedConstants::ServedInputsOf(const Node& node, const Graph& graph) const {
  std::vector<const Value*> served;
  for (const Value* input : node.inputs()) {
    if (input != nullptr && Served(*input, graph) &&
        std::find(served.begin(), served.end(), input) == served.end()) {
      served.push_back(input);
    }
  }
  return served;
}

std::vector<const Value*> PackedConstants::ServedAmong(const std::vector<const Node*>& nodes,
                                                       const Graph& graph) const {
  std::vector<const Value*> served;
  for (const Node* node : nodes) {
    if (node->op_type() == "Const" && Served(*node->output(0), graph)) served.push_back(node->output(0));
  }
  return served;
}

std::vector<const Value*> PackedAwayConstants(const CompiledModel::Impl& impl) {
  PackedConstants packed;
  for (const Step& step : impl.steps) packed.AddStep(step);
  return packed.ServedAmong(impl.nodes, *impl.graph);
}

void ReleaseConstantBytes(CompiledModel::Impl& impl, const Value& constant) {
  Node* producer = constant.producer();
  if (producer == nullptr || producer->op_type() != "Const" || constant.constant() == nullptr) {
    throw Error(ErrorCode::kInternal, fmt::format("value '{}' is no constant to release", constant.name()));
  }
  // Constants are numbered in node order (NumberValues).
  size_t index = 0;
  for (const Node* node : impl.nodes) {
    if (node == producer) break;
    if (node->op_type() == "Const") ++index;
  }
  if (index >= impl.constants.size()) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: not a constant of the model", producer->Describe()));
  }
  const Tensor* bytes = constant.constant();
  if (bytes->data() == nullptr) return;  // released before
  Tensor described = Tensor::Borrow(bytes->dtype(), bytes->shape(), nullptr);
  impl.constants[index] = described;
  producer->attrs().Set("value", std::move(described));
  ++impl.released_constants;
  // Weights are freed among live heap blocks, where free() would keep their
  // pages until the heap's top moves; hand them back now, before the next
  // kernel packs, so that the compile's peak does not hold both copies.
  ::malloc_trim(0);
}

}  // namespace ge::runtime
