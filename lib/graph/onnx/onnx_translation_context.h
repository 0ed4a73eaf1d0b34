// What a translator sees while turning one ONNX node into ge nodes.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/error.h"
#include "ge/graph.h"
#include "graph/onnx/onnx_attributes.h"
#include "graph/onnx/onnx_tensor.h"

namespace ge::onnx_import {

struct OnnxOpEntry;

// State of the import of one graph (the model's or a subgraph's) shared by
// all its nodes: the graph under construction, the ge value of every ONNX
// value name defined so far, and the types ONNX shape inference found for the
// intermediate values. A subgraph's state has its enclosing graph's as parent.
class ImportState {
 public:
  ImportState(Graph& graph, std::string origin, int opset, ImportState* parent = nullptr)
      : graph_(graph), origin_(std::move(origin)), opset_(opset), parent_(parent) {}

  Graph& graph() { return graph_; }
  const std::string& origin() const { return origin_; }
  int opset() const { return opset_; }

  void Define(const std::string& onnx_name, Value* value) { values_[onnx_name] = value; }
  // nullptr when no value of that name has been defined yet, here or in an
  // enclosing graph. A subgraph reading an enclosing graph's value gets a
  // Data input of its own for it (see implicit_inputs()).
  Value* Lookup(const std::string& onnx_name);
  // The enclosing graph's values that this subgraph reads, in the order of
  // the Data inputs Lookup added for them.
  const std::vector<Value*>& implicit_inputs() const { return implicit_inputs_; }

  void SetInferredType(const std::string& onnx_name, OnnxValueType type) { inferred_[onnx_name] = std::move(type); }
  const OnnxValueType* InferredType(const std::string& onnx_name) const;

 private:
  Graph& graph_;
  std::string origin_;
  int opset_;
  ImportState* parent_;
  std::vector<Value*> implicit_inputs_;
  std::unordered_map<std::string, Value*> values_;
  std::unordered_map<std::string, OnnxValueType> inferred_;
};

class NodeTranslation {
 public:
  // `name` is the name the main ge node asks for: the ONNX node name, or
  // "<OpType>_<index>" when that is empty.
  NodeTranslation(ImportState& state, const onnx::NodeProto& node, const OnnxOpEntry& entry, std::string name);

  int opset() const { return state_.opset(); }
  ImportState& state() const { return state_; }
  const std::string& name() const { return name_; }
  const onnx::NodeProto& proto() const { return node_; }
  const OnnxAttributes& attrs() const { return attrs_; }

  // Inputs as listed in the ONNX node; an empty name is an absent optional input.
  size_t num_inputs() const { return static_cast<size_t>(node_.input_size()); }
  Value* Input(size_t i) const;  // nullptr when absent
  Value* RequiredInput(size_t i) const;
  // The content of input i when it is produced by a Const node (an initializer
  // or a Constant node), else nullptr.
  const Tensor* InputConstant(size_t i) const;
  // Input i as integers; it must be constant (`role` names it in the error).
  std::vector<int64_t> ConstantInts(size_t i, const std::string& role) const;
  // `axis` in [-rank, rank) mapped to [0, rank) when `rank` is known, else
  // returned as is; out of range fails naming `what` (e.g. "attribute 'axis'").
  int64_t NormalizeAxis(int64_t axis, std::optional<size_t> rank, const std::string& what) const;
  // The rank of input i, when known.
  std::optional<size_t> InputRank(size_t i) const;
  DataType InputDType(size_t i) const;
  Shape InputShape(size_t i) const;  // unknown rank when absent or unknown

  size_t num_outputs() const { return static_cast<size_t>(node_.output_size()); }
  bool HasOutput(size_t i) const { return i < num_outputs() && !node_.output(static_cast<int>(i)).empty(); }

  // The node that takes name(); its op type is the table entry's ge_op.
  Node* AddMainNode(const std::vector<Value*>& inputs, size_t num_outputs = 1);
  // The same with another op type, for translations that degenerate (e.g. to Identity).
  Node* AddMainNodeAs(const std::string& op_type, const std::vector<Value*>& inputs, size_t num_outputs = 1);
  // A Const node named name() (the translation of an ONNX Constant).
  Value* AddMainConstant(Tensor value);
  // Extra nodes and constants a translation needs, named "<name>/<suffix>".
  Node* AddHelperNode(const std::string& op_type, const std::string& suffix, const std::vector<Value*>& inputs,
                      size_t num_outputs = 1);
  Value* AddHelperConstant(const std::string& suffix, Tensor value);

  // Makes `value` the ge value of ONNX output i: it takes the ONNX value name,
  // and the dtype/shape ONNX shape inference found for it (when it found one).
  void BindOutput(size_t i, Value* value);
  // Binds the outputs of `node` to the ONNX outputs in order.
  void BindOutputs(const Node* node);
  // Throws kInternal when a named ONNX output was left unbound (a translator bug).
  void CheckAllOutputsBound() const;

  // "<origin>: node '<name>' (<OpType>)", the prefix of every error about this node.
  std::string Describe() const;
  [[noreturn]] void Fail(ErrorCode code, const std::string& message) const;

 private:
  ImportState& state_;
  const onnx::NodeProto& node_;
  const OnnxOpEntry& entry_;
  std::string name_;
  OnnxAttributes attrs_;
  std::vector<bool> bound_;
};

}  // namespace ge::onnx_import
