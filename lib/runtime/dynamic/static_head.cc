#include "runtime/dynamic/static_head.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/dynamic/control_flow.h"
#include "runtime/dynamic/sequence_ops.h"

namespace ge::runtime {
namespace {

bool IsKnown(const Value* value) {
  return value->shape().IsStatic() && value->dtype() != DataType::kUndefined && !IsContainer(value->dtype());
}

// Whether `node` can join the head: it computes with a kernel, every input
// is a graph input, a constant or a head output, every shape is static.
bool JoinsHead(const Node& node, const std::unordered_set<const Node*>& head) {
  if (ControlFlowOp::Handles(node.op_type()) || IsSequenceOp(node)) return false;
  for (const Value* input : node.inputs()) {
    if (input == nullptr) continue;
    const Node* producer = input->producer();
    const bool source = producer->op_type() == "Data" || producer->op_type() == "Const";
    if (!IsKnown(input) || (!source && !head.count(producer))) return false;
  }
  for (const Node* control : node.control_inputs()) {
    if (!head.count(control)) return false;
  }
  for (const Value* output : node.outputs()) {
    if (!IsKnown(output)) return false;
  }
  return true;
}

// Copies `node` into `graph` reading the values `mapped` gives for its
// inputs, and maps its outputs to the copies.
void CopyNode(const Node& node, Graph& graph, std::unordered_map<const Value*, Value*>& mapped) {
  std::vector<Value*> inputs;
  for (const Value* input : node.inputs()) inputs.push_back(input != nullptr ? mapped.at(input) : nullptr);
  Node* copy = graph.AddNode(node.op_type(), node.name(), inputs, node.num_outputs());
  copy->attrs() = node.attrs();
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    Value* output = copy->output(i);
    output->set_name(node.output(i)->name());
    output->set_dtype(node.output(i)->dtype());
    output->set_shape(node.output(i)->shape());
    mapped[node.output(i)] = output;
  }
}

// The value a Data or Const node gives, added to `graph` once.
Value* SourceIn(Graph& graph, const Value* source, std::unordered_map<const Value*, Value*>& mapped) {
  if (auto found = mapped.find(source); found != mapped.end()) return found->second;
  const Node& producer = *source->producer();
  Value* copy = producer.op_type() == "Const"
                    ? graph.AddConstant(source->name(), producer.attrs().GetTensor("value"))
                    : graph.AddInput(source->name(), source->dtype(), source->shape());
  mapped[source] = copy;
  return copy;
}

}  // namespace

std::unique_ptr<Graph> SplitStaticHead(const Graph& specialized) {
  const std::vector<Node*> order = specialized.TopologicalOrder();
  std::unordered_set<const Node*> head;
  std::vector<const Node*> head_nodes, rest;
  for (const Node* node : order) {
    if (node->op_type() == "Data" || node->op_type() == "Const") continue;
    if (JoinsHead(*node, head)) {
      head.insert(node);
      head_nodes.push_back(node);
    } else {
      rest.push_back(node);
    }
  }
  // A head smaller than the rest (a model whose control flow comes early)
  // would save too little to be worth a compile.
  if (head_nodes.size() < rest.size() || rest.empty()) return nullptr;

  // The head's results the rest reads or the graph gives out.
  std::vector<const Value*> head_outputs;
  std::unordered_set<const Value*> handed;
  auto hand_out = [&](const Value* value) {
    if (value != nullptr && head.count(value->producer()) && handed.insert(value).second) head_outputs.push_back(value);
  };
  for (const Node* node : rest) {
    for (const Value* input : node->inputs()) hand_out(input);
  }
  for (const Value* output : specialized.outputs()) hand_out(output);

  // The head as a graph of its own, its inputs the graph inputs it reads.
  auto head_graph = std::make_shared<Graph>(specialized.name() + "_static_head");
  std::unordered_map<const Value*, Value*> in_head;
  std::vector<const Value*> head_inputs;
  for (const Node* node : head_nodes) {
    for (const Value* input : node->inputs()) {
      if (input == nullptr || head.count(input->producer())) continue;
      if (input->producer()->op_type() == "Data" && !in_head.count(input)) head_inputs.push_back(input);
      SourceIn(*head_graph, input, in_head);
    }
    CopyNode(*node, *head_graph, in_head);
  }
  std::vector<Value*> head_results;
  for (const Value* value : head_outputs) head_results.push_back(in_head.at(value));
  head_graph->SetOutputs(head_results);

  // The graph again: its inputs, one PartitionedCall for the head, the rest.
  auto split = std::make_unique<Graph>(specialized.name());
  std::unordered_map<const Value*, Value*> in_split;
  for (const Value* input : specialized.inputs()) SourceIn(*split, input, in_split);
  std::vector<Value*> call_inputs;
  for (const Value* input : head_inputs) call_inputs.push_back(in_split.at(input));
  Node* call = split->AddNode("PartitionedCall", specialized.name() + "_static_head", call_inputs, head_outputs.size());
  call->attrs().Set("f", std::shared_ptr<const Graph>(std::move(head_graph)));
  for (size_t i = 0; i < head_outputs.size(); ++i) {
    Value* output = call->output(i);
    output->set_name(head_outputs[i]->name());
    output->set_dtype(head_outputs[i]->dtype());
    output->set_shape(head_outputs[i]->shape());
    in_split[head_outputs[i]] = output;
  }
  for (const Node* node : rest) {
    for (const Value* input : node->inputs()) {
      if (input != nullptr && !in_split.count(input)) SourceIn(*split, input, in_split);
    }
    CopyNode(*node, *split, in_split);
  }
  std::vector<Value*> outputs;
  for (const Value* output : specialized.outputs()) {
    if (!in_split.count(output)) SourceIn(*split, output, in_split);
    outputs.push_back(in_split.at(output));
  }
  split->SetOutputs(outputs);
  return split;
}

}  // namespace ge::runtime
