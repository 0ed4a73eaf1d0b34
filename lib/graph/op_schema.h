// Op schemas: the one declaration of each op type's inputs, outputs,
// attributes (with types and defaults), dtype constraints and shape/dtype
// inference. Importers, passes, the verifier and kernels all read from here.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ge/attr.h"
#include "ge/error.h"
#include "ge/graph.h"

namespace ge {

enum class Arity { kRequired, kOptional, kDynamic };

struct PortSpec {
  std::string name;
  Arity arity = Arity::kRequired;
  std::string type_var;  // name of a TypeConstraint, e.g. "T"; empty: any dtype, unchecked
  size_t min_count = 1;  // kDynamic: the fewest values it takes
};

struct AttrSpec {
  std::string name;
  AttrType type = AttrType::kInt;
  bool required = false;
  AttrValue default_value;  // meaningful when !required
};

struct TypeConstraintSpec {
  std::string type_var;
  std::vector<DataType> allowed;
};

// The types of a node's inputs and outputs as one run of a dynamic model
// sees them, when they are not the graph's own: the run infers every node
// with its own shapes and leaves the shared graph untouched.
class InferValues {
 public:
  virtual ~InferValues() = default;
  virtual DataType input_dtype(size_t i) const = 0;
  virtual const Shape& input_shape(size_t i) const = 0;
  // Content of input i when the run knows it (its producer is not a Const node), else nullptr.
  virtual const Tensor* input_constant(size_t i) const = 0;
  virtual void set_output(size_t i, DataType dtype, Shape shape) = 0;
};

// What an inference function sees of one node. Attribute getters fall back to
// the schema defaults. Fail() throws ge::Error naming the node and op.
class InferContext {
 public:
  // Content of input i known to the caller although its producer is not a
  // Const node, else nullptr.
  using InputConstants = std::function<const Tensor*(size_t input_index)>;

  explicit InferContext(Node& node);
  // Inference that also sees `constants` as constant inputs (schemas then
  // compute exact shapes: Reshape of a computed shape, NonZero, ...).
  InferContext(Node& node, InputConstants constants);
  // Inference over a run's own types: inputs are read from `values` and
  // outputs written there; the node's values are not touched.
  InferContext(const Node& node, InferValues& values);

  const Node& node() const { return node_; }
  size_t num_inputs() const { return node_.num_inputs(); }
  bool has_input(size_t i) const { return node_.input(i) != nullptr; }
  DataType input_dtype(size_t i) const;
  const Shape& input_shape(size_t i) const;
  // Constant content of input i (its producer is a Const node, or the
  // caller's InputConstants or InferValues know it), else nullptr.
  const Tensor* input_constant(size_t i) const;
  size_t num_outputs() const { return node_.num_outputs(); }

  const AttrMap& attrs() const { return node_.attrs(); }
  void set_output(size_t i, DataType dtype, Shape shape);

  [[noreturn]] void Fail(const std::string& message) const;

 private:
  const Node& node_;
  Node* writable_ = nullptr;  // the node whose values set_output writes, without `values_`
  InputConstants constants_;
  InferValues* values_ = nullptr;
};

using InferFunction = std::function<void(InferContext&)>;

// Symbolic shape inference (graph/symbolic_shapes.h): a schema's optional
// rule that carries dims as expressions over the input dims' symbols.
class SymbolicContext;
using SymbolicInferFunction = std::function<void(SymbolicContext&)>;

class OpSchema {
 public:
  explicit OpSchema(std::string op_type) : op_type_(std::move(op_type)) {}

  OpSchema& Input(std::string name, std::string type_var = "T");
  OpSchema& OptionalInput(std::string name, std::string type_var = "T");
  // The last input, taking min_count or more values.
  OpSchema& DynamicInput(std::string name, std::string type_var = "T", size_t min_count = 1);
  OpSchema& Output(std::string name, std::string type_var = "T");
  OpSchema& OptionalOutput(std::string name, std::string type_var = "T");
  OpSchema& DynamicOutput(std::string name, std::string type_var = "T");
  OpSchema& Attr(std::string name, AttrValue default_value);
  OpSchema& RequiredAttr(std::string name, AttrType type);
  OpSchema& TypeConstraint(std::string type_var, std::vector<DataType> allowed);
  OpSchema& Infer(InferFunction fn);
  OpSchema& InferSymbolic(SymbolicInferFunction fn);
  OpSchema& Doc(std::string text);

  const std::string& op_type() const { return op_type_; }
  const std::vector<PortSpec>& inputs() const { return inputs_; }
  const std::vector<PortSpec>& outputs() const { return outputs_; }
  const std::vector<AttrSpec>& attrs() const { return attrs_; }
  const std::vector<TypeConstraintSpec>& type_constraints() const { return type_constraints_; }
  const InferFunction& infer() const { return infer_; }
  const SymbolicInferFunction& infer_symbolic() const { return infer_symbolic_; }
  const std::string& doc() const { return doc_; }
  const AttrSpec* FindAttr(std::string_view name) const;
  const TypeConstraintSpec* FindTypeConstraint(std::string_view type_var) const;

  // Adds missing attributes with their defaults; throws when a required one is
  // missing or an attribute has the wrong type (naming node, attr, types).
  void NormalizeAttrs(Node& node) const;
  // Checks input/output counts and dtype constraints against the node.
  void Check(const Node& node) const;
  // The parts of Check(), for callers that need only some of them (the verifier).
  void CheckArity(const Node& node) const;
  // Values bound to one type variable must share one allowed dtype; values whose
  // dtype is still kUndefined (not inferred yet) are skipped.
  void CheckDtypes(const Node& node) const;
  // Like NormalizeAttrs without filling defaults: for a const node.
  void CheckAttrs(const Node& node) const;

 private:
  std::string op_type_;
  std::vector<PortSpec> inputs_;
  std::vector<PortSpec> outputs_;
  std::vector<AttrSpec> attrs_;
  std::vector<TypeConstraintSpec> type_constraints_;
  InferFunction infer_;
  SymbolicInferFunction infer_symbolic_;
  std::string doc_;
};

// Registry of op schemas. The built-in ops are registered on first use of
// Global(); vendors add their own with Register().
class OpRegistry {
 public:
  static OpRegistry& Global();

  // Throws when the op type is already registered or the schema is malformed
  // (a port's type variable without TypeConstraint, no inference function).
  void Register(OpSchema schema);
  const OpSchema* Find(std::string_view op_type) const;
  std::vector<std::string> OpTypes() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<OpSchema>, std::less<>> schemas_;
};

// Registers every built-in schema; defined in lib/graph/ops/builtin_ops.cc.
void RegisterBuiltinOps(OpRegistry& registry);

// Type lists used by many schemas.
namespace types {
const std::vector<DataType>& Float();        // float32, float16, bfloat16, double
const std::vector<DataType>& Integer();      // all signed and unsigned ints
const std::vector<DataType>& Numeric();      // Float() + Integer()
const std::vector<DataType>& All();          // Numeric() + bool
const std::vector<DataType>& AnyValue();     // All() + sequences and optionals (graph inputs, Identity)
const std::vector<DataType>& IndexTypes();   // int32, int64
}  // namespace types

}  // namespace ge
