#include "graph/op_schema.h"

#include <fmt/format.h>

#include <algorithm>

namespace ge {
namespace {

[[noreturn]] void FailSchema(const Node& node, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {}", node.Describe(), message));
}

std::string DataTypeList(const std::vector<DataType>& types) {
  std::vector<std::string_view> names;
  for (DataType t : types) names.push_back(DataTypeName(t));
  return fmt::format("{}", fmt::join(names, ", "));
}

// Minimum and maximum number of node ports a schema's port list accepts. A
// dynamic port (always the last) takes one or more values.
struct PortCount {
  size_t min = 0;
  size_t max = 0;
  bool unbounded = false;
};

PortCount CountPorts(const std::vector<PortSpec>& ports) {
  PortCount count;
  for (const PortSpec& port : ports) {
    if (port.arity == Arity::kRequired) count.min = count.max + 1;
    if (port.arity == Arity::kDynamic) count.min = count.max + port.min_count;
    ++count.max;
    if (port.arity == Arity::kDynamic) count.unbounded = true;
  }
  return count;
}

std::string DescribeCount(const PortCount& count) {
  if (count.unbounded) return fmt::format("at least {}", count.min);
  if (count.min == count.max) return fmt::format("{}", count.min);
  return fmt::format("{} to {}", count.min, count.max);
}

// The schema port a node port index is bound to (the dynamic port absorbs the tail).
const PortSpec& PortAt(const std::vector<PortSpec>& ports, size_t index) {
  return ports[std::min(index, ports.size() - 1)];
}

// A value bound to a type variable, remembered to name it in errors.
struct TypedPort {
  std::string description;
  DataType dtype;
};

}  // namespace

// ---------------------------------------------------------------------------
// InferContext

InferContext::InferContext(Node& node) : node_(node), writable_(&node) {}
InferContext::InferContext(Node& node, InputConstants constants)
    : node_(node), writable_(&node), constants_(std::move(constants)) {}
InferContext::InferContext(const Node& node, InferValues& values) : node_(node), values_(&values) {}

DataType InferContext::input_dtype(size_t i) const {
  if (!has_input(i)) Fail(fmt::format("input {} is absent but its dtype was requested", i));
  return values_ != nullptr ? values_->input_dtype(i) : node_.input(i)->dtype();
}

const Shape& InferContext::input_shape(size_t i) const {
  if (!has_input(i)) Fail(fmt::format("input {} is absent but its shape was requested", i));
  return values_ != nullptr ? values_->input_shape(i) : node_.input(i)->shape();
}

const Tensor* InferContext::input_constant(size_t i) const {
  if (!has_input(i)) return nullptr;
  if (const Tensor* constant = node_.input(i)->constant()) return constant;
  if (values_ != nullptr) return values_->input_constant(i);
  return constants_ ? constants_(i) : nullptr;
}

void InferContext::set_output(size_t i, DataType dtype, Shape shape) {
  if (i >= node_.num_outputs()) {
    Fail(fmt::format("inference set output {} but the node has {} outputs", i, node_.num_outputs()));
  }
  if (values_ != nullptr) return values_->set_output(i, dtype, std::move(shape));
  writable_->output(i)->set_dtype(dtype);
  writable_->output(i)->set_shape(std::move(shape));
}

void InferContext::Fail(const std::string& message) const {
  throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: {}", node_.Describe(), message));
}

// ---------------------------------------------------------------------------
// OpSchema builder

namespace {

void AddPort(std::vector<PortSpec>& ports, const std::string& op_type, std::string name, Arity arity,
             std::string type_var, size_t min_count = 1) {
  if (!ports.empty() && ports.back().arity == Arity::kDynamic) {
    throw Error(
        ErrorCode::kInternal,
        fmt::format("schema {}: port '{}' follows a dynamic port; a dynamic port must be the last", op_type, name));
  }
  ports.push_back({std::move(name), arity, std::move(type_var), min_count});
}

}  // namespace

OpSchema& OpSchema::Input(std::string name, std::string type_var) {
  AddPort(inputs_, op_type_, std::move(name), Arity::kRequired, std::move(type_var));
  return *this;
}

OpSchema& OpSchema::OptionalInput(std::string name, std::string type_var) {
  AddPort(inputs_, op_type_, std::move(name), Arity::kOptional, std::move(type_var));
  return *this;
}

OpSchema& OpSchema::DynamicInput(std::string name, std::string type_var, size_t min_count) {
  AddPort(inputs_, op_type_, std::move(name), Arity::kDynamic, std::move(type_var), min_count);
  return *this;
}

OpSchema& OpSchema::Output(std::string name, std::string type_var) {
  AddPort(outputs_, op_type_, std::move(name), Arity::kRequired, std::move(type_var));
  return *this;
}

OpSchema& OpSchema::OptionalOutput(std::string name, std::string type_var) {
  AddPort(outputs_, op_type_, std::move(name), Arity::kOptional, std::move(type_var));
  return *this;
}

OpSchema& OpSchema::DynamicOutput(std::string name, std::string type_var) {
  AddPort(outputs_, op_type_, std::move(name), Arity::kDynamic, std::move(type_var));
  return *this;
}

OpSchema& OpSchema::Attr(std::string name, AttrValue default_value) {
  const AttrType type = TypeOf(default_value);
  attrs_.push_back({std::move(name), type, false, std::move(default_value)});
  return *this;
}

OpSchema& OpSchema::RequiredAttr(std::string name, AttrType type) {
  attrs_.push_back({std::move(name), type, true, {}});
  return *this;
}

OpSchema& OpSchema::TypeConstraint(std::string type_var, std::vector<DataType> allowed) {
  type_constraints_.push_back({std::move(type_var), std::move(allowed)});
  return *this;
}

OpSchema& OpSchema::Infer(InferFunction fn) {
  infer_ = std::move(fn);
  return *this;
}

OpSchema& OpSchema::InferSymbolic(SymbolicInferFunction fn) {
  infer_symbolic_ = std::move(fn);
  return *this;
}

OpSchema& OpSchema::Doc(std::string text) {
  doc_ = std::move(text);
  return *this;
}

const AttrSpec* OpSchema::FindAttr(std::string_view name) const {
  auto it = std::find_if(attrs_.begin(), attrs_.end(), [&](const AttrSpec& a) { return a.name == name; });
  return it == attrs_.end() ? nullptr : &*it;
}

const TypeConstraintSpec* OpSchema::FindTypeConstraint(std::string_view type_var) const {
  auto it = std::find_if(type_constraints_.begin(), type_constraints_.end(),
                         [&](const TypeConstraintSpec& c) { return c.type_var == type_var; });
  return it == type_constraints_.end() ? nullptr : &*it;
}

// ---------------------------------------------------------------------------
// OpSchema checks

void OpSchema::CheckAttrs(const Node& node) const {
  for (const AttrSpec& spec : attrs_) {
    const AttrValue* value = node.attrs().Find(spec.name);
    if (value == nullptr) {
      if (spec.required) {
        FailSchema(node, fmt::format("required attribute '{}' ({}) is missing", spec.name, AttrTypeName(spec.type)));
      }
      continue;
    }
    if (TypeOf(*value) != spec.type) {
      FailSchema(node, fmt::format("attribute '{}' must be {} but is {}", spec.name, AttrTypeName(spec.type),
                                   AttrTypeName(TypeOf(*value))));
    }
  }
}

void OpSchema::NormalizeAttrs(Node& node) const {
  CheckAttrs(node);
  for (const AttrSpec& spec : attrs_) {
    if (!spec.required && !node.attrs().Has(spec.name)) node.attrs().Set(spec.name, spec.default_value);
  }
}

void OpSchema::CheckArity(const Node& node) const {
  const PortCount in = CountPorts(inputs_);
  const size_t num_inputs = node.num_inputs();
  if (num_inputs > in.max && !in.unbounded) {
    FailSchema(node, fmt::format("has {} inputs but {} takes {}", num_inputs, op_type_, DescribeCount(in)));
  }
  // Trailing absent optional inputs may be either nullptr or left out.
  for (size_t i = 0; i < std::max(num_inputs, in.min); ++i) {
    const PortSpec& port = PortAt(inputs_, i);
    if (node.input(i) == nullptr && port.arity != Arity::kOptional) {
      FailSchema(node, fmt::format("input {} '{}' is missing ({} takes {} inputs)", i, port.name, op_type_,
                                   DescribeCount(in)));
    }
  }
  const PortCount out = CountPorts(outputs_);
  const size_t num_outputs = node.num_outputs();
  if (num_outputs < out.min || (num_outputs > out.max && !out.unbounded)) {
    FailSchema(node, fmt::format("has {} outputs but {} produces {}", num_outputs, op_type_, DescribeCount(out)));
  }
}

void OpSchema::CheckDtypes(const Node& node) const {
  std::map<std::string, TypedPort> bound;  // type var -> first value seen
  auto check = [&](const Value* value, const PortSpec& port, const std::string& description) {
    if (value == nullptr || value->dtype() == DataType::kUndefined || port.type_var.empty()) return;
    const TypeConstraintSpec* constraint = FindTypeConstraint(port.type_var);
    if (constraint != nullptr && std::find(constraint->allowed.begin(), constraint->allowed.end(), value->dtype()) ==
                                     constraint->allowed.end()) {
      FailSchema(node, fmt::format("{} has dtype {}; allowed for {}: {}", description, DataTypeName(value->dtype()),
                                   port.type_var, DataTypeList(constraint->allowed)));
    }
    auto [it, inserted] = bound.try_emplace(port.type_var, TypedPort{description, value->dtype()});
    if (!inserted && it->second.dtype != value->dtype()) {
      FailSchema(node, fmt::format("{} has dtype {} but {} has dtype {}; both are of type {} and must match",
                                   description, DataTypeName(value->dtype()), it->second.description,
                                   DataTypeName(it->second.dtype), port.type_var));
    }
  };
  for (size_t i = 0; i < node.num_inputs() && !inputs_.empty(); ++i) {
    const PortSpec& port = PortAt(inputs_, i);
    check(node.input(i), port, fmt::format("input {} '{}'", i, port.name));
  }
  for (size_t i = 0; i < node.num_outputs() && !outputs_.empty(); ++i) {
    const PortSpec& port = PortAt(outputs_, i);
    check(node.output(i), port, fmt::format("output {} '{}'", i, port.name));
  }
}

void OpSchema::Check(const Node& node) const {
  CheckArity(node);
  CheckDtypes(node);
}

// ---------------------------------------------------------------------------
// OpRegistry

namespace {

// Catches schema mistakes when they are registered rather than when a node trips on them.
void ValidateSchema(const OpSchema& schema) {
  if (schema.op_type().empty()) throw Error(ErrorCode::kInvalidArgument, "an op schema needs a non-empty op type");
  auto check_ports = [&](const std::vector<PortSpec>& ports) {
    for (const PortSpec& port : ports) {
      if (!port.type_var.empty() && schema.FindTypeConstraint(port.type_var) == nullptr) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("schema {}: port '{}' uses type variable '{}' that has no TypeConstraint",
                                schema.op_type(), port.name, port.type_var));
      }
    }
  };
  check_ports(schema.inputs());
  check_ports(schema.outputs());
  for (size_t i = 0; i < schema.attrs().size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (schema.attrs()[i].name == schema.attrs()[j].name) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("schema {}: attribute '{}' is declared twice",
                                                             schema.op_type(), schema.attrs()[i].name));
      }
    }
  }
  if (!schema.infer()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("schema {} has no inference function", schema.op_type()));
  }
}

}  // namespace

OpRegistry& OpRegistry::Global() {
  // Built once, thread-safely, and never destroyed, so that schemas stay valid
  // during static destruction of other objects.
  static OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    RegisterBuiltinOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpSchema schema) {
  ValidateSchema(schema);
  std::lock_guard lock(mutex_);
  if (schemas_.count(schema.op_type()) != 0) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("op type '{}' is already registered", schema.op_type()));
  }
  std::string op_type = schema.op_type();
  schemas_.emplace(std::move(op_type), std::make_unique<OpSchema>(std::move(schema)));
}

const OpSchema* OpRegistry::Find(std::string_view op_type) const {
  std::lock_guard lock(mutex_);
  auto it = schemas_.find(op_type);
  return it == schemas_.end() ? nullptr : it->second.get();
}

std::vector<std::string> OpRegistry::OpTypes() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, schema] : schemas_) names.push_back(name);
  return names;
}

// ---------------------------------------------------------------------------
// Type lists

namespace types {

const std::vector<DataType>& Float() {
  static const std::vector<DataType> list = {DataType::kFloat, DataType::kFloat16, DataType::kBFloat16,
                                             DataType::kDouble};
  return list;
}

const std::vector<DataType>& Integer() {
  static const std::vector<DataType> list = {DataType::kInt8,  DataType::kInt16,  DataType::kInt32,  DataType::kInt64,
                                             DataType::kUInt8, DataType::kUInt16, DataType::kUInt32, DataType::kUInt64};
  return list;
}

const std::vector<DataType>& Numeric() {
  static const std::vector<DataType> list = [] {
    std::vector<DataType> all = Float();
    all.insert(all.end(), Integer().begin(), Integer().end());
    return all;
  }();
  return list;
}

const std::vector<DataType>& All() {
  static const std::vector<DataType> list = [] {
    std::vector<DataType> all = Numeric();
    all.push_back(DataType::kBool);
    return all;
  }();
  return list;
}

const std::vector<DataType>& AnyValue() {
  static const std::vector<DataType> list = [] {
    std::vector<DataType> any = All();
    any.push_back(DataType::kSequence);
    any.push_back(DataType::kOptional);
    return any;
  }();
  return list;
}

const std::vector<DataType>& IndexTypes() {
  static const std::vector<DataType> list = {DataType::kInt32, DataType::kInt64};
  return list;
}

}  // namespace types
}  // namespace ge
