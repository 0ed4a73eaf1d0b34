#include <fmt/core.h>

#include <cstring>
#include <optional>

#include "graph/onnx/onnx_scalar.h"
#include "graph/onnx/onnx_tensor.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

template <typename T>
Tensor VectorTensor(DataType dtype, const std::vector<T>& values) {
  return Tensor::FromVector(dtype, Shape{static_cast<int64_t>(values.size())}, values);
}

template <typename T>
Tensor ScalarTensor(DataType dtype, T value) {
  return Tensor::FromVector(dtype, Shape{}, std::vector<T>{value});
}

// Cast's 'to' as an ONNX TensorProto.DataType value. Before opset 6 it is a
// string naming the type ("FLOAT", "INT64", ...).
int64_t CastTarget(const NodeTranslation& node) {
  const onnx::AttributeProto* to = node.attrs().Find("to");
  if (!to) node.Fail(ErrorCode::kInvalidModel, "attribute 'to' is missing");
  if (to->type() != onnx::AttributeProto::STRING) return node.attrs().Int("to", 0);
  onnx::TensorProto::DataType type;
  if (!onnx::TensorProto::DataType_Parse(to->s(), &type)) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'to' = '{}' names no ONNX dtype", to->s()));
  }
  return type;
}

// Whether Dropout's ratio (input 1) is a constant 0 (it defaults to 0.5).
bool IsConstantZeroRatio(const NodeTranslation& node) {
  const Tensor* ratio = node.Input(1) ? node.InputConstant(1) : nullptr;
  if (!ratio || ratio->num_elements() != 1) return false;
  const std::optional<Tensor> zero = MakeScalar(ratio->dtype(), 0.0);
  return zero && std::memcmp(zero->data(), ratio->data(), ratio->nbytes()) == 0;
}

}  // namespace

// Constant -> Const; exactly one of its value attributes is set (the checker ensures it).
void TranslateConstant(NodeTranslation& node) {
  const OnnxAttributes& attrs = node.attrs();
  Tensor value;
  if (const onnx::AttributeProto* tensor = attrs.Find("value")) {
    value = TensorFromOnnx(tensor->t(), fmt::format("{}: attribute 'value'", node.Describe()));
  } else if (attrs.Has("value_float")) {
    value = ScalarTensor(DataType::kFloat, attrs.Float("value_float", 0));
  } else if (attrs.Has("value_floats")) {
    value = VectorTensor(DataType::kFloat, attrs.Floats("value_floats"));
  } else if (attrs.Has("value_int")) {
    value = ScalarTensor(DataType::kInt64, attrs.Int("value_int", 0));
  } else if (attrs.Has("value_ints")) {
    value = VectorTensor(DataType::kInt64, attrs.Ints("value_ints"));
  } else {
    const std::string kind = node.proto().attribute_size() > 0 ? node.proto().attribute(0).name() : "none";
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("value attribute '{}' is not supported; supported: value (a dense tensor), value_float, "
                          "value_floats, value_int, value_ints",
                          kind));
  }
  node.BindOutput(0, node.AddMainConstant(std::move(value)));
}

void TranslateCast(NodeTranslation& node) {
  const int64_t to = CastTarget(node);
  const std::optional<DataType> dtype = DataTypeFromOnnx(static_cast<int32_t>(to));
  if (!dtype || *dtype == DataType::kComplex64 || *dtype == DataType::kComplex128) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("casting to ONNX dtype {} is not supported", to));
  }
  Node* cast = node.AddMainNode({node.RequiredInput(0)});
  cast->attrs().Set("dst_type", static_cast<int64_t>(*dtype));
  node.BindOutputs(cast);
}

// Dropout at inference is the identity; its mask output is not supported.
// Before opset 7 the attribute 'is_test' chose inference; 'ratio' and
// 'consumed_inputs' do not matter at inference.
void TranslateDropout(NodeTranslation& node) {
  if (node.opset() < 7 && node.attrs().Int("is_test", 0) == 0) {
    node.Fail(ErrorCode::kUnsupported, "attribute 'is_test' = 0 (training) is not supported; only inference is");
  }
  // Opset 12 made training_mode an optional input. Training drops random
  // elements, which only a constant ratio of 0 rules out.
  if (node.Input(2)) {
    const Tensor* training = node.InputConstant(2);
    if (!training) node.Fail(ErrorCode::kUnsupported, "input training_mode must be a constant");
    if (training->ToInt64Vector() != std::vector<int64_t>{0} && !IsConstantZeroRatio(node)) {
      node.Fail(ErrorCode::kUnsupported,
                "training_mode = true needs a constant ratio of 0 (random dropout is not supported)");
    }
  }
  Value* x = node.RequiredInput(0);
  node.BindOutput(0, node.AddMainNode({x})->output(0));
  if (!node.HasOutput(1)) return;
  // Nothing is dropped, so the mask is all true, shaped like x.
  if (node.opset() < 10) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("the optional output mask ('{}') is only supported from opset 10 "
                                                   "(bool); before, it has x's dtype",
                                                   node.proto().output(1)));
  }
  Value* shape = node.AddHelperNode("Shape", "mask_shape", {x})->output(0);
  Value* keep = node.AddHelperConstant("mask_value", ScalarTensor(DataType::kBool, uint8_t{1}));
  node.BindOutput(1, node.AddHelperNode("Fill", "mask", {shape, keep})->output(0));
}

}  // namespace ge::onnx_import
