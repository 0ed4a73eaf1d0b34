#include "graph/tf/tf_translation.h"

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/framework_source.h"
#include "graph/tf/tf_tensor.h"

namespace ge::tf_import {

Value* TfNodeContext::input(size_t i) const {
  if (i >= inputs_.size()) Fail(fmt::format("has {} inputs; input {} is needed", inputs_.size(), i));
  return inputs_[i];
}

const Tensor* TfNodeContext::constant(size_t i) const { return input(i)->constant(); }

std::vector<int64_t> TfNodeContext::ConstantInts(size_t i, const std::string& what) const {
  const Tensor* tensor = constant(i);
  if (tensor == nullptr) Fail(fmt::format("{} (input {}) must be a constant", what, i), /*unsupported=*/true);
  return tensor->ToInt64Vector();
}

namespace {

const ge::tf::AttrValue* Find(const ge::tf::NodeDef& node, const std::string& attr) {
  const auto it = node.attr().find(attr);
  return it != node.attr().end() ? &it->second : nullptr;
}

}  // namespace

int64_t TfNodeContext::Int(const std::string& attr, int64_t fallback) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  return value != nullptr ? value->i() : fallback;
}

float TfNodeContext::Float(const std::string& attr, float fallback) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  return value != nullptr ? value->f() : fallback;
}

bool TfNodeContext::Bool(const std::string& attr, bool fallback) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  return value != nullptr ? value->b() : fallback;
}

std::string TfNodeContext::String(const std::string& attr, const std::string& fallback) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  return value != nullptr ? value->s() : fallback;
}

std::vector<int64_t> TfNodeContext::Ints(const std::string& attr) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  if (value == nullptr) return {};
  return std::vector<int64_t>(value->list().i().begin(), value->list().i().end());
}

std::vector<std::string> TfNodeContext::Strings(const std::string& attr) const {
  const ge::tf::AttrValue* value = Find(node_, attr);
  if (value == nullptr) return {};
  return std::vector<std::string>(value->list().s().begin(), value->list().s().end());
}

DataType TfNodeContext::Dtype(const std::string& attr, DataType fallback) const {
  const auto it = node_.attr().find(attr);
  if (it == node_.attr().end()) return fallback;
  const std::optional<DataType> dtype = DtypeFromTf(it->second.type());
  if (!dtype) Fail(fmt::format("attribute '{}' names a dtype ge does not have", attr), /*unsupported=*/true);
  return *dtype;
}

Value* TfNodeContext::Op(const std::string& op_type, const std::vector<Value*>& inputs,
                         const std::map<std::string, AttrValue>& attrs, const std::string& name) {
  Value* y = nullptr;
  try {
    y = builder_.Op(op_type, inputs, attrs, 1, name)[0];
  } catch (const Error& e) {
    Fail(fmt::format("as ge {}: {}", op_type, e.what()));
  }
  MarkFrameworkSource(*y->producer(), "TensorFlow", node_.op());
  return y;
}

Value* TfNodeContext::Constant(const std::string& suffix, Tensor value) {
  return builder_.Constant(Name(suffix), std::move(value));
}

void TfNodeContext::Fail(const std::string& message, bool unsupported) const {
  throw Error(unsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidModel,
              fmt::format("{}: node '{}' ({}): {}", origin_, node_.name(), node_.op(), message));
}

const TfTranslators& AllTfTranslators() {
  static const TfTranslators table = [] {
    TfTranslators t;
    AddConvTranslators(t);
    AddMathTranslators(t);
    AddShapeTranslators(t);
    AddIndexTranslators(t);
    AddDetectionTranslators(t);
    AddListTranslators(t);
    return t;
  }();
  return table;
}

Value* FusedActivation(TfNodeContext& ctx, const std::string& activation, Value* x, Value* alpha) {
  const std::string name = ctx.node().name();
  if (activation == "Relu" || activation == "Sigmoid" || activation == "Tanh" || activation == "Elu") {
    return ctx.Op(activation, {x}, {}, name);
  }
  if (activation == "Relu6") {
    Value* low = ctx.Constant("relu6_min", Tensor::FromVector(DataType::kFloat, Shape(), std::vector<float>{0.0f}));
    Value* high = ctx.Constant("relu6_max", Tensor::FromVector(DataType::kFloat, Shape(), std::vector<float>{6.0f}));
    return ctx.Op("ClipByValue", {x, low, high}, {}, name);
  }
  if (activation == "LeakyRelu") {
    return ctx.Op("LeakyRelu", {x}, {{"negative_slope", ctx.Float("leakyrelu_alpha", 0.2f)}}, name);
  }
  if (activation == "Prelu" && alpha != nullptr) return ctx.Op("PRelu", {x, alpha}, {}, name);
  ctx.Fail(fmt::format("fused activation '{}' is not supported (supported: Relu, Relu6, Elu, LeakyRelu, Prelu, "
                       "Sigmoid, Tanh)", activation), /*unsupported=*/true);
}

}  // namespace ge::tf_import
