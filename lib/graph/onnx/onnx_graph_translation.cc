#include "graph/onnx/onnx_graph_translation.h"

#include <fmt/core.h>

#include <algorithm>

#include "ge/error.h"
#include "graph/onnx/onnx_op_registry.h"
#include "graph/onnx/onnx_tensor.h"

namespace ge::onnx_import {
namespace {

// Runs one node's translator; errors that do not name the node yet get its name.
void TranslateNode(ImportState& state, const onnx::NodeProto& proto, int index) {
  const OnnxOpEntry* entry = FindOnnxOp(proto.op_type(), state.opset());  // the importer checked every node first
  if (entry == nullptr) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: no translator for op {}", state.origin(), proto.op_type()));
  }
  NodeTranslation node(state, proto, *entry, NodeName(proto, index));
  try {
    entry->translate(node);
    node.CheckAllOutputsBound();
  } catch (const Error& e) {
    if (std::string_view(e.what()).starts_with(node.Describe())) throw;
    throw Error(e.code(), fmt::format("{}: {}", node.Describe(), e.what()));
  } catch (const std::exception& e) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: {}", node.Describe(), e.what()));
  }
}

std::string InitializerLabel(const ImportState& state, const onnx::TensorProto& initializer) {
  return fmt::format("{}: initializer '{}'", state.origin(), initializer.name());
}

void DefineInitializer(ImportState& state, const std::string& name, Tensor value,
                       std::unordered_set<std::string>& names) {
  state.Define(name, state.graph().AddConstant(name, std::move(value)));
  names.insert(name);
}

}  // namespace

std::string NodeName(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? fmt::format("{}_{}", node.op_type(), index) : node.name();
}

void DeclareInferredTypes(ImportState& state, const onnx::GraphProto& graph) {
  // Inputs too: the element dtype of a sequence input is known only from its type.
  for (const auto& info : graph.input()) {
    if (auto type = ValueTypeFromOnnx(info.type())) state.SetInferredType(info.name(), std::move(*type));
  }
  for (const auto& info : graph.value_info()) {
    if (auto type = ValueTypeFromOnnx(info.type())) state.SetInferredType(info.name(), std::move(*type));
  }
  for (const auto& info : graph.output()) {
    if (auto type = ValueTypeFromOnnx(info.type())) state.SetInferredType(info.name(), std::move(*type));
  }
}


std::unordered_set<std::string> DefineInitializers(ImportState& state, const onnx::GraphProto& graph) {
  std::unordered_set<std::string> names;
  for (const auto& initializer : graph.initializer()) {
    DefineInitializer(state, initializer.name(), TensorFromOnnx(initializer, InitializerLabel(state, initializer)),
                      names);
  }
  return names;
}

std::unordered_set<std::string> TakeInitializers(ImportState& state, onnx::GraphProto& graph) {
  std::unordered_set<std::string> names;
  for (auto& initializer : *graph.mutable_initializer()) {
    DefineInitializer(state, initializer.name(),
                      TakeTensorFromOnnx(initializer, InitializerLabel(state, initializer)), names);
  }
  return names;
}

void TranslateNodesAndOutputs(ImportState& state, const onnx::GraphProto& graph) {
  for (int i = 0; i < graph.node_size(); ++i) TranslateNode(state, graph.node(i), i);
  std::vector<Value*> outputs;
  for (const auto& output : graph.output()) {
    Value* value = state.Lookup(output.name());
    if (!value) {
      throw Error(ErrorCode::kInvalidModel,
                  fmt::format("{}: graph output '{}' is produced by no node, initializer or input", state.origin(),
                              output.name()));
    }
    outputs.push_back(value);
  }
  state.graph().SetOutputs(std::move(outputs));
}

ImportedSubgraph ImportSubgraph(ImportState& outer, const onnx::GraphProto& proto, const std::string& name,
                                const std::vector<OnnxValueType>& input_types) {
  const std::string origin = fmt::format("{}: subgraph '{}'", outer.origin(), name);
  if (static_cast<size_t>(proto.input_size()) != input_types.size()) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: has {} inputs; the node gives it {}", origin,
                                                      proto.input_size(), input_types.size()));
  }
  ImportedSubgraph imported;
  imported.graph = std::make_unique<Graph>(name);
  imported.own_inputs = input_types.size();
  ImportState state(*imported.graph, origin, outer.opset(), &outer);
  DeclareInferredTypes(state, proto);
  // Its own inputs first: they are Data inputs 0..n-1, the implicit ones follow.
  for (int i = 0; i < proto.input_size(); ++i) {
    const onnx::ValueInfoProto& input = proto.input(i);
    std::optional<OnnxValueType> declared = ValueTypeFromOnnx(input.type());
    OnnxValueType type = declared && declared->dtype != DataType::kUndefined ? *declared : input_types[i];
    if (type.dtype == DataType::kUndefined) {
      throw Error(ErrorCode::kInvalidModel,
                  fmt::format("{}: input '{}' has no tensor type and none follows from the node", origin, input.name()));
    }
    state.Define(input.name(), imported.graph->AddInput(input.name(), type.dtype, std::move(type.shape)));
  }
  DefineInitializers(state, proto);
  TranslateNodesAndOutputs(state, proto);
  imported.implicit_inputs = state.implicit_inputs();
  return imported;
}

std::vector<Value*> UnifyImplicitInputs(const std::vector<ImportedSubgraph*>& subgraphs) {
  std::vector<Value*> all;
  for (const ImportedSubgraph* subgraph : subgraphs) {
    for (Value* value : subgraph->implicit_inputs) {
      if (std::find(all.begin(), all.end(), value) == all.end()) all.push_back(value);
    }
  }
  for (ImportedSubgraph* subgraph : subgraphs) {
    // The Data input of each implicit input, by its outer value.
    std::vector<Value*> inputs = subgraph->graph->inputs();
    std::vector<Value*> data(all.size(), nullptr);
    for (size_t i = 0; i < subgraph->implicit_inputs.size(); ++i) {
      size_t position = std::find(all.begin(), all.end(), subgraph->implicit_inputs[i]) - all.begin();
      data[position] = inputs[subgraph->own_inputs + i];
    }
    for (size_t k = 0; k < all.size(); ++k) {
      if (data[k] == nullptr) data[k] = subgraph->graph->AddInput(all[k]->name(), all[k]->dtype(), all[k]->shape());
      data[k]->producer()->attrs().Set("index", static_cast<int64_t>(subgraph->own_inputs + k));
    }
    subgraph->implicit_inputs = all;
  }
  return all;
}

}  // namespace ge::onnx_import
