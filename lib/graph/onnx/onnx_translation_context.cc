#include "graph/onnx/onnx_translation_context.h"

#include <fmt/core.h>

#include "graph/onnx/onnx_op_registry.h"

namespace ge::onnx_import {
namespace {

// Absent optional inputs at the end are left out rather than kept as nullptr.
std::vector<Value*> WithoutTrailingAbsent(std::vector<Value*> inputs) {
  while (!inputs.empty() && inputs.back() == nullptr) inputs.pop_back();
  return inputs;
}

}  // namespace

Value* ImportState::Lookup(const std::string& onnx_name) {
  auto it = values_.find(onnx_name);
  if (it != values_.end()) return it->second;
  Value* outer = parent_ != nullptr ? parent_->Lookup(onnx_name) : nullptr;
  if (outer == nullptr) return nullptr;
  Value* input = graph_.AddInput(onnx_name, outer->dtype(), outer->shape());
  implicit_inputs_.push_back(outer);
  values_[onnx_name] = input;
  return input;
}

const OnnxValueType* ImportState::InferredType(const std::string& onnx_name) const {
  auto it = inferred_.find(onnx_name);
  return it == inferred_.end() ? nullptr : &it->second;
}

NodeTranslation::NodeTranslation(ImportState& state, const onnx::NodeProto& node, const OnnxOpEntry& entry,
                                 std::string name)
    : state_(state),
      node_(node),
      entry_(entry),
      name_(std::move(name)),
      attrs_(node, fmt::format("{}: node '{}' ({})", state.origin(), name_, node.op_type())),
      bound_(static_cast<size_t>(node.output_size()), false) {}

std::string NodeTranslation::Describe() const {
  return fmt::format("{}: node '{}' ({})", state_.origin(), name_, node_.op_type());
}

void NodeTranslation::Fail(ErrorCode code, const std::string& message) const {
  throw Error(code, fmt::format("{}: {}", Describe(), message));
}

Value* NodeTranslation::Input(size_t i) const {
  if (i >= num_inputs()) return nullptr;
  const std::string& input_name = node_.input(static_cast<int>(i));
  if (input_name.empty()) return nullptr;
  Value* value = state_.Lookup(input_name);
  if (!value) {
    // The checker enforces topological order, so this is a name that nothing defines.
    Fail(ErrorCode::kInvalidModel, fmt::format("input {} '{}' is not defined by any earlier node, initializer or "
                                               "graph input",
                                               i, input_name));
  }
  return value;
}

Value* NodeTranslation::RequiredInput(size_t i) const {
  Value* value = Input(i);
  if (!value) Fail(ErrorCode::kInvalidModel, fmt::format("required input {} is missing", i));
  return value;
}

const Tensor* NodeTranslation::InputConstant(size_t i) const {
  Value* value = Input(i);
  return value ? value->constant() : nullptr;
}

std::vector<int64_t> NodeTranslation::ConstantInts(size_t i, const std::string& role) const {
  const Tensor* tensor = InputConstant(i);
  if (!tensor) {
    Fail(ErrorCode::kUnsupported,
         fmt::format("input {} ({}) must be a constant (an initializer or a Constant node); computed {} are not "
                     "supported",
                     i, role, role));
  }
  if (!IsInteger(tensor->dtype())) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("input {} ({}) has dtype {}; expected int32 or int64", i, role, DataTypeName(tensor->dtype())));
  }
  return tensor->ToInt64Vector();
}

int64_t NodeTranslation::NormalizeAxis(int64_t axis, std::optional<size_t> rank, const std::string& what) const {
  if (!rank) return axis;
  const auto r = static_cast<int64_t>(*rank);
  if (axis < -r || axis >= r) {
    Fail(ErrorCode::kInvalidModel, fmt::format("{} is {}, outside [{}, {}) for rank {}", what, axis, -r, r, r));
  }
  return axis < 0 ? axis + r : axis;
}

std::optional<size_t> NodeTranslation::InputRank(size_t i) const {
  const Shape shape = InputShape(i);
  if (shape.unknown_rank()) return std::nullopt;
  return shape.rank();
}

DataType NodeTranslation::InputDType(size_t i) const {
  Value* value = Input(i);
  return value ? value->dtype() : DataType::kUndefined;
}

Shape NodeTranslation::InputShape(size_t i) const {
  Value* value = Input(i);
  return value ? value->shape() : Shape::UnknownRank();
}

Node* NodeTranslation::AddMainNode(const std::vector<Value*>& inputs, size_t num_outputs) {
  return AddMainNodeAs(std::string(entry_.ge_op), inputs, num_outputs);
}

Node* NodeTranslation::AddMainNodeAs(const std::string& op_type, const std::vector<Value*>& inputs,
                                     size_t num_outputs) {
  return state_.graph().AddNode(op_type, name_, WithoutTrailingAbsent(inputs), num_outputs);
}

Value* NodeTranslation::AddMainConstant(Tensor value) { return state_.graph().AddConstant(name_, std::move(value)); }

Node* NodeTranslation::AddHelperNode(const std::string& op_type, const std::string& suffix,
                                     const std::vector<Value*>& inputs, size_t num_outputs) {
  return state_.graph().AddNode(op_type, fmt::format("{}/{}", name_, suffix), WithoutTrailingAbsent(inputs),
                                num_outputs);
}

Value* NodeTranslation::AddHelperConstant(const std::string& suffix, Tensor value) {
  return state_.graph().AddConstant(fmt::format("{}/{}", name_, suffix), std::move(value));
}

void NodeTranslation::BindOutput(size_t i, Value* value) {
  if (!HasOutput(i)) return;  // an optional output the model does not use
  const std::string& onnx_name = node_.output(static_cast<int>(i));
  value->set_name(onnx_name);
  if (const OnnxValueType* inferred = state_.InferredType(onnx_name)) {
    value->set_dtype(inferred->dtype);
    value->set_shape(inferred->shape);
  }
  state_.Define(onnx_name, value);
  bound_[i] = true;
}

void NodeTranslation::BindOutputs(const Node* node) {
  for (size_t i = 0; i < node->num_outputs(); ++i) BindOutput(i, node->output(i));
}

void NodeTranslation::CheckAllOutputsBound() const {
  for (size_t i = 0; i < num_outputs(); ++i) {
    if (HasOutput(i) && !bound_[i]) {
      Fail(ErrorCode::kInternal, fmt::format("the translator left output {} '{}' without a value", i,
                                             node_.output(static_cast<int>(i))));
    }
  }
}

}  // namespace ge::onnx_import
