// Symbolic shape inference: every value's dims as expressions over the
// graph inputs' dim symbols (graph/dim_expr.h), carried node by node by the
// schemas' symbolic rules (OpSchema::InferSymbolic).
//
// The symbols are the names the model gives its input dims (ONNX dim_param:
// "batch", "sequence", "past"); an unknown input dim without a name gets the
// symbol "<input>.<axis>". A rule proves what it claims: it sets an output
// only when the dims its op requires to match are equal as expressions, so
// that every input shape the run accepts (known dims as declared, dims named
// alike of one size) gives the shapes the expressions say. Where a rule
// cannot (an op without one, dims it cannot prove equal, a shape that
// depends on data), the output keeps the dims the graph's own inference
// knows, and each unknown dim becomes an unknown atom.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/graph.h"
#include "graph/dim_expr.h"

namespace ge {

using SymbolicDims = std::vector<DimExpr>;

// What a symbolic rule sees of one node.
class SymbolicContext {
 public:
  SymbolicContext(const Node& node, DimTable& table, std::vector<const SymbolicDims*> input_dims,
                  std::vector<const SymbolicDims*> input_values);

  const Node& node() const { return node_; }
  DimTable& table() { return table_; }
  size_t num_inputs() const { return input_dims_.size(); }
  size_t num_outputs() const { return node_.num_outputs(); }
  // Input i's dims; nullptr when the input is absent or its rank unknown.
  const SymbolicDims* input_dims(size_t i) const { return i < input_dims_.size() ? input_dims_[i] : nullptr; }
  // The contents of an integer input of rank 0 or 1 (a shape vector, a
  // slice bound) as expressions, when they are known; else nullptr.
  const SymbolicDims* input_value(size_t i) const { return i < input_values_.size() ? input_values_[i] : nullptr; }

  // The node's attribute, or the schema's default.
  int64_t Int(const std::string& name) const;
  const std::vector<int64_t>& Ints(const std::string& name) const;
  bool Bool(const std::string& name) const;

  void set_output_dims(size_t i, SymbolicDims dims);
  void set_output_value(size_t i, SymbolicDims value);
  const std::vector<std::optional<SymbolicDims>>& output_dims() const { return output_dims_; }
  const std::vector<std::optional<SymbolicDims>>& output_values() const { return output_values_; }

 private:
  const AttrValue& AttrOrDefault(const std::string& name) const;

  const Node& node_;
  DimTable& table_;
  std::vector<const SymbolicDims*> input_dims_;
  std::vector<const SymbolicDims*> input_values_;
  std::vector<std::optional<SymbolicDims>> output_dims_;
  std::vector<std::optional<SymbolicDims>> output_values_;
};

class SymbolicShapes {
 public:
  // Infers every value of `graph` (whose values already carry the graph's
  // own inference) in topological order. Never throws for a model's
  // contents: a rule that fails leaves its outputs to the fallback.
  static std::unique_ptr<SymbolicShapes> Infer(const Graph& graph);

  const DimTable& table() const { return table_; }
  // The value's dims; nullptr when its rank is unknown.
  const SymbolicDims* dims(const Value* value) const;
  // Whether a rule proved the value's dims (rather than the fallback giving
  // them): a run may then take its shape from them without the schema's
  // checks, which the rule made for every input shape the run accepts.
  bool Proven(const Value* value) const { return proven_.count(value) != 0; }
  // The value's integer contents, for shape vectors the rules tracked.
  const SymbolicDims* value(const Value* value) const;
  // The symbols of the graph inputs' dims: (input index, axis, atom).
  struct InputSymbol {
    size_t input;
    size_t axis;
    int atom;
  };
  const std::vector<InputSymbol>& input_symbols() const { return input_symbols_; }
  // Per dim of `value`: the expression when it is not a constant and the
  // input shapes determine it, else empty. Empty when nothing is symbolic.
  std::vector<std::string> DimNames(const Value* value) const;

 private:
  void InferNode(const Node& node);

  DimTable table_;
  std::unordered_map<const Value*, SymbolicDims> dims_;
  std::unordered_map<const Value*, SymbolicDims> values_;
  std::unordered_set<const Value*> proven_;
  std::vector<InputSymbol> input_symbols_;
};

}  // namespace ge
