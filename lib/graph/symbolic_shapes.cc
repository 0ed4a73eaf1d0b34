#include "graph/symbolic_shapes.h"

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/dim_names.h"
#include "graph/op_schema.h"

namespace ge {
namespace {

// Integer contents up to this many elements are tracked as values (shape
// vectors and slice bounds are short).
constexpr int64_t kMaxTrackedValues = 64;

bool IsIndexType(DataType dtype) { return dtype == DataType::kInt64 || dtype == DataType::kInt32; }

SymbolicDims ConstantDims(const Shape& shape) {
  SymbolicDims dims;
  for (int64_t d : shape.dims()) dims.emplace_back(d);
  return dims;
}

// The dims the graph's own inference knows, each unknown one a new unknown atom.
SymbolicDims FallbackDims(DimTable& table, const Value& value) {
  SymbolicDims dims;
  for (size_t axis = 0; axis < value.shape().rank(); ++axis) {
    const int64_t d = value.shape().dim(axis);
    dims.push_back(d != Shape::kUnknownDim ? DimExpr(d) : table.Unknown(fmt::format("{}[{}]", value.name(), axis)));
  }
  return dims;
}

// A rule's dims for `value`, checked against what the graph's inference
// knows: the rank must agree and a known dim wins over the rule's. nullopt
// when they disagree.
std::optional<SymbolicDims> Reconciled(const SymbolicDims& rule, const Value& value) {
  const Shape& shape = value.shape();
  if (shape.unknown_rank()) return rule;
  if (shape.rank() != rule.size()) return std::nullopt;
  SymbolicDims dims = rule;
  for (size_t axis = 0; axis < dims.size(); ++axis) {
    const int64_t known = shape.dim(axis);
    if (known == Shape::kUnknownDim) continue;
    if (std::optional<int64_t> c = dims[axis].constant(); c && *c != known) return std::nullopt;
    dims[axis] = DimExpr(known);
  }
  return dims;
}

}  // namespace

SymbolicContext::SymbolicContext(const Node& node, DimTable& table, std::vector<const SymbolicDims*> input_dims,
                                 std::vector<const SymbolicDims*> input_values)
    : node_(node),
      table_(table),
      input_dims_(std::move(input_dims)),
      input_values_(std::move(input_values)),
      output_dims_(node.num_outputs()),
      output_values_(node.num_outputs()) {}

const AttrValue& SymbolicContext::AttrOrDefault(const std::string& name) const {
  if (const AttrValue* value = node_.attrs().Find(name)) return *value;
  const OpSchema* schema = OpRegistry::Global().Find(node_.op_type());
  const AttrSpec* spec = schema != nullptr ? schema->FindAttr(name) : nullptr;
  if (spec == nullptr || spec->required) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: no attribute '{}'", node_.Describe(), name));
  }
  return spec->default_value;
}

int64_t SymbolicContext::Int(const std::string& name) const {
  if (const auto* v = std::get_if<int64_t>(&AttrOrDefault(name))) return *v;
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: attribute '{}' is not an int", node_.Describe(), name));
}

const std::vector<int64_t>& SymbolicContext::Ints(const std::string& name) const {
  if (const auto* v = std::get_if<std::vector<int64_t>>(&AttrOrDefault(name))) return *v;
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: attribute '{}' is not a list of ints", node_.Describe(), name));
}

bool SymbolicContext::Bool(const std::string& name) const {
  const AttrValue& value = AttrOrDefault(name);
  if (const auto* v = std::get_if<bool>(&value)) return *v;
  if (const auto* v = std::get_if<int64_t>(&value)) return *v != 0;
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: attribute '{}' is not a bool", node_.Describe(), name));
}

void SymbolicContext::set_output_dims(size_t i, SymbolicDims dims) { output_dims_.at(i) = std::move(dims); }
void SymbolicContext::set_output_value(size_t i, SymbolicDims value) { output_values_.at(i) = std::move(value); }

std::unique_ptr<SymbolicShapes> SymbolicShapes::Infer(const Graph& graph) {
  auto shapes = std::make_unique<SymbolicShapes>();
  const std::vector<Value*> inputs = graph.inputs();
  for (size_t index = 0; index < inputs.size(); ++index) {
    const Value* input = inputs[index];
    if (input->shape().unknown_rank()) continue;
    const std::vector<std::string> names = DimNamesOf(*input);
    SymbolicDims dims;
    for (size_t axis = 0; axis < input->shape().rank(); ++axis) {
      const int64_t d = input->shape().dim(axis);
      if (d != Shape::kUnknownDim) {
        dims.emplace_back(d);
        continue;
      }
      const std::string name =
          !names.empty() && !names[axis].empty() ? names[axis] : fmt::format("{}.{}", input->name(), axis);
      dims.push_back(shapes->table_.Symbol(name));
      shapes->input_symbols_.push_back(InputSymbol{index, axis, *dims.back().single_atom()});
    }
    shapes->dims_.emplace(input, std::move(dims));
  }
  for (const Node* node : graph.TopologicalOrder()) {
    if (node->op_type() != "Data") shapes->InferNode(*node);
  }
  return shapes;
}

void SymbolicShapes::InferNode(const Node& node) {
  if (node.op_type() == "Const") {
    const Value* out = node.output(0);
    const Tensor* tensor = out->constant();
    if (tensor == nullptr) return;
    dims_.emplace(out, ConstantDims(tensor->shape()));
    if (IsIndexType(tensor->dtype()) && tensor->shape().rank() <= 1 && tensor->shape().NumElements() <= kMaxTrackedValues) {
      SymbolicDims contents;
      for (int64_t v : tensor->ToInt64Vector()) contents.emplace_back(v);
      values_.emplace(out, std::move(contents));
    }
    return;
  }
  std::vector<const SymbolicDims*> input_dims;
  std::vector<const SymbolicDims*> input_values;
  for (const Value* input : node.inputs()) {
    input_dims.push_back(dims(input));
    input_values.push_back(value(input));
  }
  SymbolicContext ctx(node, table_, std::move(input_dims), std::move(input_values));
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type());
  bool ruled = schema != nullptr && schema->infer_symbolic();
  if (ruled) {
    try {
      schema->infer_symbolic()(ctx);
    } catch (const DimExprLimit&) {
      ruled = false;  // too large to carry: every output falls back
    } catch (const Error&) {
      ruled = false;  // a malformed node: its compile or run reports it
    }
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    const Value* out = node.output(i);
    std::optional<SymbolicDims> reconciled;
    if (ruled && ctx.output_dims()[i]) reconciled = Reconciled(*ctx.output_dims()[i], *out);
    if (reconciled) proven_.insert(out);
    if (!reconciled && !out->shape().unknown_rank()) reconciled = FallbackDims(table_, *out);
    if (!reconciled) continue;
    const std::optional<SymbolicDims>& contents = ctx.output_values()[i];
    const size_t rank = reconciled->size();
    const std::optional<int64_t> length = rank == 1 ? (*reconciled)[0].constant() : std::optional<int64_t>(1);
    if (ruled && contents && rank <= 1 && length && static_cast<size_t>(*length) == contents->size()) {
      values_.emplace(out, *contents);
    }
    dims_.emplace(out, std::move(*reconciled));
  }
}

const SymbolicDims* SymbolicShapes::dims(const Value* value) const {
  if (value == nullptr) return nullptr;
  const auto it = dims_.find(value);
  return it != dims_.end() ? &it->second : nullptr;
}

const SymbolicDims* SymbolicShapes::value(const Value* value) const {
  if (value == nullptr) return nullptr;
  const auto it = values_.find(value);
  return it != values_.end() ? &it->second : nullptr;
}

std::vector<std::string> SymbolicShapes::DimNames(const Value* value) const {
  const SymbolicDims* d = dims(value);
  if (d == nullptr) return {};
  std::vector<std::string> names;
  bool any = false;
  for (const DimExpr& e : *d) {
    const bool named = !e.constant() && table_.Determined(e) && table_.Printable(e);
    names.push_back(named ? table_.ToString(e) : std::string());
    any = any || named;
  }
  return any ? names : std::vector<std::string>{};
}

}  // namespace ge
