// Translators of the ONNX ops that lay out or generate tensors: Pad,
// ConstantOfShape, OneHot, EyeLike, Trilu, DepthToSpace, SpaceToDepth.
// (Expand, Tile, Range and Size translate directly.)
#include <fmt/core.h>

#include "graph/onnx/onnx_scalar.h"
#include "graph/onnx/onnx_tensor.h"
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// ONNX Pad mode -> PadV3 mode (the same three names).
std::string PadMode(NodeTranslation& node) {
  std::string mode = node.attrs().String("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("attribute 'mode' = '{}' is not supported; supported: constant, reflect, edge", mode));
  }
  return mode;
}

// ONNX's pads are [begins..., ends...]: PadV3's non-contiguous order.
void AddPad(NodeTranslation& node, Value* pads, Value* constant_value) {
  Node* pad = node.AddMainNode({node.RequiredInput(0), pads, constant_value});
  pad->attrs().Set("mode", PadMode(node));
  pad->attrs().Set("paddings_contiguous", false);
  node.BindOutputs(pad);
}

}  // namespace

// Pad before opset 11: pads and value are attributes.
void TranslatePadWithAttrs(NodeTranslation& node) {
  const std::vector<int64_t> pads = node.attrs().Ints("pads", node.attrs().Ints("paddings"));
  Value* paddings = node.AddHelperConstant(
      "pads", Tensor::FromVector(DataType::kInt64, Shape{static_cast<int64_t>(pads.size())}, pads));
  std::optional<Tensor> value = MakeScalar(node.InputDType(0), node.attrs().Float("value", 0.0f));
  if (!value) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("input dtype {} has no numeric pad value", DataTypeName(node.InputDType(0))));
  }
  AddPad(node, paddings, node.AddHelperConstant("value", std::move(*value)));
}

void TranslatePadWithInputs(NodeTranslation& node) {
  AddPad(node, node.RequiredInput(1), node.Input(2));
}

// ConstantOfShape -> Fill; the value attribute (default float32 0) becomes a Const.
void TranslateConstantOfShape(NodeTranslation& node) {
  Tensor value = Tensor::FromVector(DataType::kFloat, Shape{}, std::vector<float>{0.0f});
  if (const onnx::AttributeProto* attr = node.attrs().Find("value")) {
    value = TensorFromOnnx(attr->t(), fmt::format("{}: attribute 'value'", node.Describe()));
    if (value.num_elements() != 1) {
      node.Fail(ErrorCode::kInvalidModel,
                fmt::format("attribute 'value' must hold one element, got shape {}", value.shape().ToString()));
    }
    value = value.Reshaped(Shape{});
  }
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), node.AddHelperConstant("value", std::move(value))}));
}

// OneHot's values input [off, on] is split into two scalars by GatherV2D.
void TranslateOneHot(NodeTranslation& node) {
  Value* values = node.RequiredInput(2);
  auto pick = [&](const char* suffix, int64_t index) {
    Value* position = node.AddHelperConstant(std::string(suffix) + "_index",
                                             Tensor::FromVector(DataType::kInt64, Shape{}, std::vector{index}));
    Node* gather = node.AddHelperNode("GatherV2D", suffix, {values, position});
    gather->attrs().Set("axis", int64_t{0});
    return gather->output(0);
  };
  Value* off = pick("off_value", 0);
  Value* on = pick("on_value", 1);
  Node* one_hot = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), on, off});
  one_hot->attrs().Set("axis", node.attrs().Int("axis", -1));
  node.BindOutputs(one_hot);
}

void TranslateEyeLike(NodeTranslation& node) {
  DataType dtype = node.InputDType(0);
  if (node.attrs().Has("dtype")) {
    const int64_t onnx_dtype = node.attrs().Int("dtype", 0);
    const std::optional<DataType> converted = DataTypeFromOnnx(static_cast<int32_t>(onnx_dtype));
    if (!converted) node.Fail(ErrorCode::kUnsupported, fmt::format("attribute 'dtype' = {} is not supported", onnx_dtype));
    dtype = *converted;
  }
  Node* eye = node.AddMainNode({node.RequiredInput(0)});
  eye->attrs().Set("dtype", static_cast<int64_t>(dtype));
  eye->attrs().Set("k", node.attrs().Int("k", 0));
  node.BindOutputs(eye);
}

// Trilu -> Triu (upper = 1) or Tril; a constant k becomes the diagonal
// attribute, a computed one stays an input.
void TranslateTrilu(NodeTranslation& node) {
  const bool upper = node.attrs().Int("upper", 1) != 0;
  std::vector<Value*> inputs = {node.RequiredInput(0)};
  int64_t diagonal = 0;
  if (node.InputConstant(1) != nullptr) {
    const std::vector<int64_t> values = node.ConstantInts(1, "k");
    if (values.size() != 1) node.Fail(ErrorCode::kInvalidModel, "input k must hold one integer");
    diagonal = values[0];
  } else if (node.Input(1)) {
    inputs.push_back(node.Input(1));
  }
  Node* triangle = node.AddMainNodeAs(upper ? "Triu" : "Tril", inputs);
  triangle->attrs().Set("diagonal", diagonal);
  node.BindOutputs(triangle);
}

void TranslateDepthToSpace(NodeTranslation& node) {
  Node* op = node.AddMainNode({node.RequiredInput(0)});
  op->attrs().Set("block_size", node.attrs().Int("blocksize", 0));
  op->attrs().Set("mode", node.attrs().String("mode", "DCR"));
  node.BindOutputs(op);
}

void TranslateSpaceToDepth(NodeTranslation& node) {
  Node* op = node.AddMainNode({node.RequiredInput(0)});
  op->attrs().Set("block_size", node.attrs().Int("blocksize", 0));
  node.BindOutputs(op);
}

}  // namespace ge::onnx_import
