// If, Loop and Scan: each subgraph becomes a closed ge graph attribute; the
// values it reads from enclosing graphs become inputs of the node after its
// own (num_implicit_inputs counts them for Loop and Scan).
#include <fmt/core.h>

#include "graph/onnx/onnx_graph_translation.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

OnnxValueType TypeOf(const Value* value) {
  return value ? OnnxValueType{value->dtype(), value->shape()} : OnnxValueType{};
}

std::shared_ptr<const Graph> Freeze(ImportedSubgraph& subgraph) { return std::move(subgraph.graph); }

ImportedSubgraph Import(NodeTranslation& node, const std::string& attr, const std::vector<OnnxValueType>& input_types) {
  return ImportSubgraph(node.state(), node.attrs().Graph(attr), fmt::format("{}/{}", node.name(), attr), input_types);
}

}  // namespace

void TranslateIf(NodeTranslation& node) {
  ImportedSubgraph then_branch = Import(node, "then_branch", {});
  ImportedSubgraph else_branch = Import(node, "else_branch", {});
  std::vector<Value*> inputs{node.RequiredInput(0)};
  for (Value* value : UnifyImplicitInputs({&then_branch, &else_branch})) inputs.push_back(value);
  Node* ge_node = node.AddMainNode(inputs, node.num_outputs());
  ge_node->attrs().Set("then_branch", Freeze(then_branch));
  ge_node->attrs().Set("else_branch", Freeze(else_branch));
  node.BindOutputs(ge_node);
}

void TranslateLoop(NodeTranslation& node) {
  // The body takes (iteration number, condition, loop-carried values...).
  std::vector<OnnxValueType> body_inputs{{DataType::kInt64, Shape{}}, {DataType::kBool, Shape{}}};
  std::vector<Value*> inputs{node.Input(0), node.Input(1)};
  for (size_t i = 2; i < node.num_inputs(); ++i) {
    inputs.push_back(node.RequiredInput(i));
    body_inputs.push_back(TypeOf(inputs.back()));
  }
  ImportedSubgraph body = Import(node, "body", body_inputs);
  for (Value* value : body.implicit_inputs) inputs.push_back(value);
  Node* ge_node = node.AddMainNode(inputs, node.num_outputs());
  ge_node->attrs().Set("body", Freeze(body));
  ge_node->attrs().Set("num_implicit_inputs", static_cast<int64_t>(body.implicit_inputs.size()));
  node.BindOutputs(ge_node);
}

void TranslateScan(NodeTranslation& node) {
  const int64_t scan_inputs = node.attrs().Int("num_scan_inputs", 0);
  const auto num_inputs = static_cast<int64_t>(node.num_inputs());
  if (scan_inputs < 1 || scan_inputs > num_inputs) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("num_scan_inputs is {}; it must be in [1, {}] (the node's input count)", scan_inputs,
                          num_inputs));
  }
  const size_t states = node.num_inputs() - static_cast<size_t>(scan_inputs);
  std::vector<int64_t> input_axes = node.attrs().Ints("scan_input_axes", std::vector<int64_t>(scan_inputs, 0));
  std::vector<int64_t> input_directions =
      node.attrs().Ints("scan_input_directions", std::vector<int64_t>(scan_inputs, 0));
  const size_t scan_outputs = node.num_outputs() - std::min(node.num_outputs(), states);
  std::vector<int64_t> output_axes =
      node.attrs().Ints("scan_output_axes", std::vector<int64_t>(scan_outputs, 0));
  std::vector<int64_t> output_directions =
      node.attrs().Ints("scan_output_directions", std::vector<int64_t>(scan_outputs, 0));
  if (input_axes.size() != static_cast<size_t>(scan_inputs) ||
      input_directions.size() != static_cast<size_t>(scan_inputs) || output_axes.size() != scan_outputs ||
      output_directions.size() != scan_outputs) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("scan_input_axes/directions need {} entries and scan_output_axes/directions {}", scan_inputs,
                          scan_outputs));
  }

  std::vector<Value*> inputs;
  std::vector<OnnxValueType> body_inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    inputs.push_back(node.RequiredInput(i));
    OnnxValueType type = TypeOf(inputs.back());
    if (i >= states && !type.shape.unknown_rank()) {
      // The body sees one slice: the scanned axis removed.
      const int64_t axis = node.NormalizeAxis(input_axes[i - states], type.shape.rank(), "scan_input_axes");
      std::vector<int64_t> dims = type.shape.dims();
      dims.erase(dims.begin() + axis);
      type.shape = Shape(std::move(dims));
    }
    body_inputs.push_back(std::move(type));
  }
  ImportedSubgraph body = Import(node, "body", body_inputs);
  for (Value* value : body.implicit_inputs) inputs.push_back(value);
  Node* ge_node = node.AddMainNode(inputs, node.num_outputs());
  ge_node->attrs().Set("body", Freeze(body));
  ge_node->attrs().Set("num_scan_inputs", scan_inputs);
  ge_node->attrs().Set("num_implicit_inputs", static_cast<int64_t>(body.implicit_inputs.size()));
  ge_node->attrs().Set("scan_input_axes", input_axes);
  ge_node->attrs().Set("scan_input_directions", input_directions);
  ge_node->attrs().Set("scan_output_axes", output_axes);
  ge_node->attrs().Set("scan_output_directions", output_directions);
  node.BindOutputs(ge_node);
}

}  // namespace ge::onnx_import
