#include "passes/graph_rewrite.h"

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/op_schema.h"

namespace ge::passes {

const AttrValue* AttrOrDefault(const Node& node, const std::string& name) {
  if (const AttrValue* value = node.attrs().Find(name)) return value;
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type());
  const AttrSpec* spec = schema != nullptr ? schema->FindAttr(name) : nullptr;
  return spec != nullptr && !spec->required ? &spec->default_value : nullptr;
}

bool IsGraphOutput(const Graph& graph, const Value* value) {
  const auto& outputs = graph.outputs();
  return std::find(outputs.begin(), outputs.end(), value) != outputs.end();
}

void ReplaceValue(Graph& graph, Value* from, Value* to) {
  if (IsGraphOutput(graph, from)) {
    // Swapping (rather than copying) keeps value names unique.
    std::string output_name = from->name();
    from->set_name(to->name());
    to->set_name(std::move(output_name));
  }
  graph.ReplaceAllUsesWith(from, to);
}

namespace {

void CheckMatchesOutput(const Node& node, size_t index, const Tensor& tensor) {
  const Value& output = *node.output(index);
  bool dtype_ok = output.dtype() == DataType::kUndefined || output.dtype() == tensor.dtype();
  bool shape_ok = !output.shape().IsStatic() || output.shape() == tensor.shape();
  if (!dtype_ok || !shape_ok) {
    throw Error(ErrorCode::kInternal,
                fmt::format("node '{}' ({}): folded output {} is {}{} but inference said {}{}", node.name(),
                            node.op_type(), index, DataTypeName(tensor.dtype()), tensor.shape().ToString(),
                            DataTypeName(output.dtype()), output.shape().ToString()));
  }
}

}  // namespace

void ReplaceWithConstants(Graph& graph, Node* node, std::vector<Tensor> values) {
  if (values.size() != node->num_outputs()) {
    throw Error(ErrorCode::kInternal, fmt::format("node '{}' ({}): folding produced {} tensors for {} outputs",
                                                  node->name(), node->op_type(), values.size(),
                                                  node->num_outputs()));
  }
  for (size_t i = 0; i < values.size(); ++i) CheckMatchesOutput(*node, i, values[i]);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string prefix = node->num_outputs() == 1 ? fmt::format("{}_folded", node->name())
                                                  : fmt::format("{}_folded_{}", node->name(), i);
    Value* constant = graph.AddConstant(graph.UniqueName(prefix), std::move(values[i]));
    ReplaceValue(graph, node->output(i), constant);
  }
  std::vector<Node*> producers;
  for (const Value* input : node->inputs()) {
    if (input != nullptr && input->producer() != nullptr) producers.push_back(input->producer());
  }
  graph.RemoveNode(node);
  // Constants that fed only this node go now rather than with the dead nodes
  // at the end: a folded weight (a transposed MatMul operand, say) is then
  // never held next to its source for the rest of the compile.
  std::sort(producers.begin(), producers.end());
  producers.erase(std::unique(producers.begin(), producers.end()), producers.end());
  for (Node* producer : producers) {
    const Value* output = producer->output(0);
    if (producer->op_type() == "Const" && output->uses().empty() &&
        std::count(graph.outputs().begin(), graph.outputs().end(), output) == 0) {
      graph.RemoveNode(producer);
    }
  }
}

std::unordered_set<const Node*> NodesWithControlDependents(const Graph& graph) {
  std::unordered_set<const Node*> result;
  for (const Node* node : graph.nodes()) {
    result.insert(node->control_inputs().begin(), node->control_inputs().end());
  }
  return result;
}

bool IsFoldable(const Node& node) {
  if (node.op_type() == "Data" || node.op_type() == "Const") return false;
  bool any_input = false;
  for (const Value* input : node.inputs()) {
    if (input == nullptr) continue;
    if (input->constant() == nullptr) return false;
    any_input = true;
  }
  return any_input;
}

std::optional<std::vector<Tensor>> EvaluateOnConstants(const Node& node, ConstantEvaluator& evaluator) {
  std::vector<Tensor> inputs;
  inputs.reserve(node.num_inputs());
  for (const Value* input : node.inputs()) inputs.push_back(input != nullptr ? *input->constant() : Tensor());
  return evaluator.Evaluate(node, inputs);
}

}  // namespace ge::passes
