// Sequences and optionals (graph/ops/sequence_ops.cc). ge's IR knows that a
// value is a sequence or an optional but not what it holds, so the ops that
// hand out an element get its dtype ("dtype") from ONNX's types: the output's
// when shape inference typed it, else the element type of the container.
#include <fmt/core.h>

#include "graph/onnx/onnx_graph_translation.h"
#include "graph/onnx/onnx_tensor.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// The dtype of the element the node hands out as output 0.
DataType ElementDtype(NodeTranslation& node) {
  const OnnxValueType* output = node.state().InferredType(node.proto().output(0));
  if (output != nullptr && output->dtype != DataType::kUndefined) return output->dtype;
  const OnnxValueType* container = node.state().InferredType(node.proto().input(0));
  if (container != nullptr && container->element_dtype != DataType::kUndefined) return container->element_dtype;
  node.Fail(ErrorCode::kInvalidModel, "the type of its element output is unknown: neither the output nor the input "
                                      "has a declared type");
}

const onnx::AttributeProto* FindAttribute(const NodeTranslation& node, const std::string& name) {
  for (const auto& attribute : node.proto().attribute()) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

std::vector<Value*> AllInputs(const NodeTranslation& node) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.Input(i));
  return inputs;
}

// The node with the integer attributes the model gives of `names` (the
// schema has the defaults of the others).
Node* AddWithIntAttrs(NodeTranslation& node, std::initializer_list<const char*> names) {
  Node* ge_node = node.AddMainNode(AllInputs(node), node.num_outputs());
  for (const char* name : names) {
    if (FindAttribute(node, name) != nullptr) ge_node->attrs().Set(name, node.attrs().Int(name, 0));
  }
  return ge_node;
}

}  // namespace

void TranslateSequenceElement(NodeTranslation& node) {
  const DataType dtype = ElementDtype(node);
  Node* ge_node = AddWithIntAttrs(node, {"axis", "new_axis"});  // ConcatFromSequence's
  ge_node->attrs().Set("dtype", dtype);
  node.BindOutputs(ge_node);
}

void TranslateSplitToSequence(NodeTranslation& node) { node.BindOutputs(AddWithIntAttrs(node, {"axis", "keepdims"})); }

void TranslateSequenceEmpty(NodeTranslation& node) {
  const int64_t onnx_dtype = node.attrs().Int("dtype", onnx::TensorProto::FLOAT);
  const std::optional<DataType> dtype = DataTypeFromOnnx(static_cast<int32_t>(onnx_dtype));
  if (!dtype) node.Fail(ErrorCode::kUnsupported, fmt::format("dtype {} is not a tensor dtype ge has", onnx_dtype));
  Node* ge_node = node.AddMainNode({}, 1);
  ge_node->attrs().Set("dtype", *dtype);
  node.BindOutputs(ge_node);
}

// The attribute "type" (a TypeProto) says what the optional holds.
void TranslateOptional(NodeTranslation& node) {
  DataType dtype = DataType::kUndefined;
  if (const onnx::AttributeProto* type = FindAttribute(node, "type")) {
    if (std::optional<OnnxValueType> held = ValueTypeFromOnnx(type->tp())) dtype = held->dtype;
  } else if (Value* input = node.Input(0)) {
    dtype = input->dtype();
  }
  if (dtype == DataType::kUndefined) {
    node.Fail(ErrorCode::kInvalidModel, "the type of the element is unknown: give the attribute 'type' or an input");
  }
  Node* ge_node = node.AddMainNode(AllInputs(node), 1);
  ge_node->attrs().Set("dtype", dtype);
  node.BindOutputs(ge_node);
}

// The body runs per element; values it reads from outside become inputs
// after the node's own (num_implicit_inputs), passed whole.
void TranslateSequenceMap(NodeTranslation& node) {
  std::vector<Value*> inputs{node.RequiredInput(0)};
  for (size_t i = 1; i < node.num_inputs(); ++i) inputs.push_back(node.RequiredInput(i));
  ImportedSubgraph body = ImportSubgraph(node.state(), node.attrs().Graph("body"), fmt::format("{}/body", node.name()),
                                         std::vector<OnnxValueType>(inputs.size()));
  for (Value* value : body.implicit_inputs) inputs.push_back(value);
  Node* ge_node = node.AddMainNode(inputs, node.num_outputs());
  ge_node->attrs().Set("body", std::shared_ptr<const Graph>(std::move(body.graph)));
  ge_node->attrs().Set("num_implicit_inputs", static_cast<int64_t>(body.implicit_inputs.size()));
  node.BindOutputs(ge_node);
}

}  // namespace ge::onnx_import
