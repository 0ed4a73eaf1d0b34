#include "runtime/compile/model_layout.h"

#include <unordered_map>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/dim_names.h"
#include "graph/mapped_file.h"
#include "runtime/compile/kernel_selection.h"
#include "runtime/compile/packed_constants.h"

namespace ge::runtime {
namespace {

bool IsSource(const Node& node) { return node.op_type() == "Data" || node.op_type() == "Const"; }

[[noreturn]] void BadOrder(const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, "invalid execution order: " + message);
}

// A step whose every output is a view of one of its inputs has nothing to compute.
bool IsViewStep(const Step& step) {
  if (step.outputs.empty()) return false;
  for (size_t i = 0; i < step.outputs.size(); ++i) {
    int aliased = step.kernel->AliasedInput(i);
    if (aliased < 0) return false;
    if (static_cast<size_t>(aliased) >= step.inputs.size() || step.inputs[aliased] < 0) {
      throw Error(ErrorCode::kInternal, fmt::format("{}: its kernel says output {} views input {}, which is absent",
                                                    step.node->Describe(), i, aliased));
    }
  }
  return true;
}

int IdOf(const std::unordered_map<const Value*, int>& id_of, const Value* value, const Graph& graph) {
  auto it = id_of.find(value);
  if (it == id_of.end()) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("value '{}' is not produced by a node of graph '{}'",
                                                      value->name(), graph.name()));
  }
  return it->second;
}

// The kernel of `node` is built: the constants it re-laid-out into memory of
// its own are not read from the file again, and the ones it reads in place
// come back from the page cache on first use. Handing the pages back keeps a
// loaded model from holding both copies of its weights (ge run's peak RSS).
void ReleaseConstantPages(const MappedFile& file, const Node& node) {
  for (const Value* input : node.inputs()) {
    const Tensor* constant = input != nullptr ? input->constant() : nullptr;
    if (constant != nullptr) file.ReleasePages(constant->data(), constant->nbytes());
  }
}

}  // namespace

std::vector<size_t> DefaultStepNodes(const std::vector<const Node*>& nodes) {
  std::vector<size_t> steps;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!IsSource(*nodes[i])) steps.push_back(i);
  }
  return steps;
}

void NumberValues(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes) {
  impl.device_name = device.name();
  impl.nodes = std::move(nodes);
  std::unordered_map<const Value*, int> id_of;
  for (const Node* node : impl.nodes) {
    for (const Value* output : node->outputs()) {
      id_of[output] = static_cast<int>(impl.values.size());
      impl.values.push_back(output);
    }
    if (node->op_type() == "Const") {
      const Tensor* content = node->output(0)->constant();
      if (content == nullptr) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: has no tensor attribute 'value'", node->Describe()));
      }
      impl.constants.push_back(*content);
    }
  }
  auto value_id = [&](const Value* value) { return IdOf(id_of, value, *impl.graph); };
  for (const Value* input : impl.graph->inputs()) {
    impl.input_values.push_back(value_id(input));
    impl.inputs.push_back(TensorInfo{input->name(), input->dtype(), input->shape(), DimNamesOf(*input)});
  }
  for (const Value* output : impl.graph->outputs()) {
    impl.output_values.push_back(value_id(output));
    impl.outputs.push_back(TensorInfo{output->name(), output->dtype(), output->shape()});
  }
}

void LayOutModel(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes,
                 const std::vector<size_t>& step_nodes, bool release_packed) {
  NumberValues(impl, device, std::move(nodes));
  PackedConstants packed;
  std::unordered_map<const Value*, int> id_of;
  std::vector<bool> available;  // value id -> computed before the current step
  for (const Node* node : impl.nodes) {
    for (const Value* output : node->outputs()) {
      id_of[output] = static_cast<int>(available.size());
      available.push_back(IsSource(*node));
    }
  }
  auto value_id = [&](const Value* value) { return IdOf(id_of, value, *impl.graph); };

  std::vector<bool> scheduled(impl.nodes.size(), false);
  std::unordered_map<const Node*, size_t> index_of;
  for (size_t i = 0; i < impl.nodes.size(); ++i) index_of[impl.nodes[i]] = i;
  for (size_t index : step_nodes) {
    if (index >= impl.nodes.size()) BadOrder(fmt::format("node #{} of {}", index, impl.nodes.size()));
    const Node* node = impl.nodes[index];
    if (IsSource(*node) || scheduled[index]) BadOrder(fmt::format("{} cannot be a step here", node->Describe()));
    for (const Value* input : node->inputs()) {
      if (input != nullptr && !available[value_id(input)]) {
        BadOrder(fmt::format("{} runs before its input '{}' is computed", node->Describe(), input->name()));
      }
    }
    for (const Node* control : node->control_inputs()) {
      auto it = index_of.find(control);
      if (it == index_of.end() || (!IsSource(*control) && !scheduled[it->second])) {
        BadOrder(fmt::format("{} runs before its control input '{}'", node->Describe(), control->name()));
      }
    }

    Step step;
    step.node = node;
    SelectedKernel selected = SelectKernel(device, *node);
    step.kernel = std::move(selected.kernel);
    step.impl_mode = std::move(selected.impl_mode);
    for (const Value* input : node->inputs()) step.inputs.push_back(input != nullptr ? value_id(input) : -1);
    for (const Value* output : node->outputs()) {
      step.outputs.push_back(value_id(output));
      available[value_id(output)] = true;
    }
    step.is_view = IsViewStep(step);
    step.workspace_bytes = step.kernel->WorkspaceBytes();
    if (impl.weights_file) ReleaseConstantPages(*impl.weights_file, *node);
    if (release_packed) {
      // Freed as soon as the last kernel using a constant has packed it, so
      // that compiling never holds every weight twice.
      packed.AddStep(step);
      for (const Value* constant : packed.ServedInputsOf(*node, *impl.graph)) ReleaseConstantBytes(impl, *constant);
    }
    scheduled[index] = true;
    impl.steps.push_back(std::move(step));
  }
  for (size_t i = 0; i < impl.nodes.size(); ++i) {
    if (!IsSource(*impl.nodes[i]) && !scheduled[i]) BadOrder(fmt::format("{} never runs", impl.nodes[i]->Describe()));
  }
}

void RebuildKernels(CompiledModel::Impl& impl, const device::Device& device) {
  for (Step& step : impl.steps) {
    step.kernel = SelectKernel(device, *step.node).kernel;
    step.workspace_bytes = step.kernel->WorkspaceBytes();
  }
}

}  // namespace ge::runtime
