#include "quant/quant_graph_edit.h"

#include <algorithm>

namespace ge::quant {

void RedirectUses(Graph& graph, Value* from, Value* to, const Node* except) {
  const std::vector<Use> uses = from->uses();
  for (const Use& use : uses) {
    if (use.node != except) use.node->SetInput(static_cast<size_t>(use.input_index), to);
  }
  std::vector<Value*> outputs = graph.outputs();
  std::replace(outputs.begin(), outputs.end(), from, to);
  graph.SetOutputs(std::move(outputs));
}

Node* InsertAfter(Graph& graph, Value* value, const std::string& op_type, const std::string& name,
                  const std::vector<Value*>& extra_inputs, const std::string& renamed_value) {
  std::vector<Value*> inputs = {value};
  inputs.insert(inputs.end(), extra_inputs.begin(), extra_inputs.end());
  Node* node = graph.AddNode(op_type, name, inputs);
  Value* output = node->output(0);
  RedirectUses(graph, value, output, node);
  output->set_dtype(value->dtype());
  output->set_shape(value->shape());
  const std::string original_name = value->name();
  value->set_name(renamed_value);
  output->set_name(original_name);
  return node;
}

Node* ReplaceKeepingName(Graph& graph, Node* node, const std::string& op_type, const std::vector<Value*>& inputs) {
  Value* old_output = node->output(0);
  const std::string node_name = node->name();
  const std::string value_name = old_output->name();
  const DataType dtype = old_output->dtype();
  const Shape shape = old_output->shape();
  // Detach the consumers (and graph outputs) so the old node can go first and free its name.
  const std::vector<Use> uses = old_output->uses();
  for (const Use& use : uses) use.node->SetInput(static_cast<size_t>(use.input_index), nullptr);
  std::vector<Value*> outputs = graph.outputs();
  std::vector<size_t> output_slots;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] == old_output) {
      output_slots.push_back(i);
      outputs[i] = nullptr;
    }
  }
  graph.SetOutputs(outputs);
  graph.RemoveNode(node);

  Node* replacement = graph.AddNode(op_type, node_name, inputs);
  Value* output = replacement->output(0);
  output->set_name(value_name);
  output->set_dtype(dtype);
  output->set_shape(shape);
  for (const Use& use : uses) use.node->SetInput(static_cast<size_t>(use.input_index), output);
  for (size_t slot : output_slots) outputs[slot] = output;
  graph.SetOutputs(std::move(outputs));
  return replacement;
}

bool Tagged(const Node& node, const char* attr) {
  const AttrValue* value = node.attrs().Find(attr);
  return value != nullptr && std::holds_alternative<bool>(*value) && std::get<bool>(*value);
}

}  // namespace ge::quant
