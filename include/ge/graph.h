// The ge intermediate representation: a graph of nodes connected by values.
//
// A Value is one tensor produced by exactly one node output (graph inputs are
// produced by "Data" nodes, constants by "Const" nodes). Nodes refer to their
// input values; each value keeps the list of its uses. Op types and attribute
// names follow the Ascend IR (Conv2D, MatMulV2, SoftmaxV2, ...): see
// docs/op-set.md. The graph owns its nodes and values; pointers stay valid
// until the node or value is removed.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ge/attr.h"
#include "ge/export.h"
#include "ge/shape.h"
#include "ge/types.h"

namespace ge {

class Node;
class Graph;

struct GE_API Use {
  Node* node;
  int input_index;
  bool operator==(const Use&) const = default;
};

class GE_API Value {
 public:
  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  void set_dtype(DataType dtype) { dtype_ = dtype; }
  void set_shape(Shape shape) { shape_ = std::move(shape); }
  void set_name(std::string name) { name_ = std::move(name); }

  Node* producer() const { return producer_; }
  int producer_output() const { return producer_output_; }
  const std::vector<Use>& uses() const { return uses_; }

  // The constant content when the producer is a Const node, else nullptr.
  const Tensor* constant() const;

 private:
  friend class Graph;
  friend class Node;
  void RemoveUse(const Use& use);

  std::string name_;
  DataType dtype_ = DataType::kUndefined;
  Shape shape_ = Shape::UnknownRank();
  Node* producer_ = nullptr;
  int producer_output_ = 0;
  std::vector<Use> uses_;
};

class GE_API Node {
 public:
  const std::string& name() const { return name_; }
  const std::string& op_type() const { return op_type_; }
  Graph* graph() const { return graph_; }

  // Inputs in schema order; an absent optional input is nullptr.
  const std::vector<Value*>& inputs() const { return inputs_; }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  size_t num_inputs() const { return inputs_.size(); }
  void SetInput(size_t index, Value* value);  // grows the input list as needed
  void AddInput(Value* value);

  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* output(size_t i) const { return outputs_.at(i); }
  size_t num_outputs() const { return outputs_.size(); }

  // Control edges: this node runs after every node in control_inputs().
  const std::vector<Node*>& control_inputs() const { return control_inputs_; }
  void AddControlInput(Node* node);

  AttrMap& attrs() { return attrs_; }
  const AttrMap& attrs() const { return attrs_; }

  // "name (OpType)" for error messages.
  std::string Describe() const;

 private:
  friend class Graph;
  std::string name_;
  std::string op_type_;
  Graph* graph_ = nullptr;
  uint64_t sequence_ = 0;  // insertion order, the tie-breaker of TopologicalOrder
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<std::unique_ptr<Value>> output_storage_;  // a node owns its output values
  std::vector<Node*> control_inputs_;
  AttrMap attrs_;
};

class GE_API Graph {
 public:
  explicit Graph(std::string name = "graph");
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  Graph(Graph&&) noexcept;
  Graph& operator=(Graph&&) noexcept;

  const std::string& name() const { return name_; }

  // A graph input: a "Data" node with attr index = its position.
  Value* AddInput(const std::string& name, DataType dtype, Shape shape);
  // A constant: a "Const" node with attr "value". The value's dtype and shape are the tensor's.
  Value* AddConstant(const std::string& name, Tensor value);
  // A node of any registered or unregistered op type with num_outputs fresh
  // output values named "<name>:<i>" (or "<name>" when there is one output).
  // An empty or taken name is replaced by a unique one derived from it.
  Node* AddNode(const std::string& op_type, const std::string& name, const std::vector<Value*>& inputs,
                size_t num_outputs = 1);

  void SetOutputs(std::vector<Value*> outputs) { outputs_ = std::move(outputs); }
  const std::vector<Value*>& outputs() const { return outputs_; }
  // Values produced by the Data nodes, ordered by their index attr.
  std::vector<Value*> inputs() const;

  // All nodes in insertion order.
  std::vector<Node*> nodes() const;
  size_t num_nodes() const { return nodes_.size(); }
  Node* FindNode(const std::string& name) const;

  // Nodes ordered so that every node follows its data and control inputs;
  // ties keep insertion order. Throws ge::Error naming a node on a cycle.
  std::vector<Node*> TopologicalOrder() const;

  // Rewires every use of `from` (and graph outputs) to `to`.
  void ReplaceAllUsesWith(Value* from, Value* to);
  // Removes a node whose outputs have no uses and are not graph outputs.
  void RemoveNode(Node* node);
  // Removes nodes that do not contribute to any graph output; Data nodes stay.
  size_t RemoveDeadNodes();

  // A node name not used yet in this graph: prefix itself when free, else prefix_<n>.
  std::string UniqueName(const std::string& prefix);

  // Deep copy (constants share their buffers; they are immutable).
  std::unique_ptr<Graph> Clone() const;

 private:
  Node* CreateNode(const std::string& op_type, const std::string& name, size_t num_outputs);
  bool NameTaken(const std::string& name) const { return node_names_.count(name) != 0; }

  std::string name_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::unordered_map<std::string, Node*> node_names_;
  std::vector<Value*> outputs_;
  uint64_t next_sequence_ = 0;
};

}  // namespace ge
