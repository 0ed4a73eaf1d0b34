// Translating the contents of one ONNX graph (the model's or a subgraph's)
// into a ge graph: initializers, nodes through the op table, outputs.
#pragma once

#include <onnx/onnx_pb.h>

#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "graph/onnx/onnx_translation_context.h"

namespace ge::onnx_import {

// The ONNX node name, or "<OpType>_<index>" when it has none.
std::string NodeName(const onnx::NodeProto& node, int index);

// Records the types ONNX shape inference found (value_info and outputs).
void DeclareInferredTypes(ImportState& state, const onnx::GraphProto& graph);
// Adds every initializer as a Const and returns their names.
std::unordered_set<std::string> DefineInitializers(ImportState& state, const onnx::GraphProto& graph);
// The same for a graph the import owns: the initializers' raw bytes move into the constants.
std::unordered_set<std::string> TakeInitializers(ImportState& state, onnx::GraphProto& graph);
// Translates the nodes in order and sets the graph outputs; the graph's
// inputs must be defined already.
void TranslateNodesAndOutputs(ImportState& state, const onnx::GraphProto& graph);

// A subgraph (If branch, Loop or Scan body) imported as a closed ge graph.
struct ImportedSubgraph {
  std::unique_ptr<Graph> graph;
  size_t own_inputs = 0;  // the ONNX subgraph's declared inputs, first
  // Values of the enclosing graph the subgraph reads; its Data inputs after
  // its own, in this order.
  std::vector<Value*> implicit_inputs;
};

// Imports `proto` as a subgraph of the graph `outer` is building. An input
// the subgraph declares without a usable type takes input_types[i] (the
// caller knows it from the node's inputs, e.g. Loop's carried values).
ImportedSubgraph ImportSubgraph(ImportState& outer, const onnx::GraphProto& proto, const std::string& name,
                                const std::vector<OnnxValueType>& input_types);

// Gives several subgraphs of one node (If's branches) the same implicit
// inputs: the union, in first-seen order. Returns it.
std::vector<Value*> UnifyImplicitInputs(const std::vector<ImportedSubgraph*>& subgraphs);

}  // namespace ge::onnx_import
