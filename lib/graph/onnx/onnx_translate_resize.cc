// Resize and Upsample -> Resize (ONNX opset 11-13 semantics and attributes).
// The older forms are the same interpolation with fixed coordinate rules:
// Resize-10 and Upsample map output x to input x / scale (asymmetric) and
// pick the floor for nearest.
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// An optional input given as an empty tensor (Resize's roi or scales when
// sizes is used) is the same as an absent one.
Value* NonEmptyInput(const NodeTranslation& node, size_t i) {
  Value* value = node.Input(i);
  const Tensor* constant = node.InputConstant(i);
  if (constant != nullptr && constant->num_elements() == 0) return nullptr;
  return value;
}

// ONNX's interpolation mode; the older ops call linear "bilinear" too.
std::string ReadMode(const NodeTranslation& node) {
  std::string mode = node.attrs().String("mode", "nearest");
  if (mode == "bilinear" || mode == "trilinear") mode = "linear";
  if (mode != "nearest" && mode != "linear" && mode != "cubic") {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'mode' is '{}'; valid: nearest, linear, cubic", mode));
  }
  return mode;
}

// The older forms: x resized by `scales` with asymmetric coordinates.
void AddScaledResize(NodeTranslation& node, Value* scales) {
  Node* resize = node.AddMainNode({node.RequiredInput(0), nullptr, scales});
  resize->attrs().Set("mode", ReadMode(node));
  resize->attrs().Set("coordinate_transformation_mode", std::string("asymmetric"));
  resize->attrs().Set("nearest_mode", std::string("floor"));
  node.BindOutputs(resize);
}

Value* ScalesConstant(NodeTranslation& node, const std::vector<float>& scales) {
  return node.AddHelperConstant(
      "scales", Tensor::FromVector(DataType::kFloat, Shape{static_cast<int64_t>(scales.size())}, scales));
}

}  // namespace

// Resize 11-13: X, roi, scales, sizes with every attribute.
void TranslateResize(NodeTranslation& node) {
  Value* sizes = node.num_inputs() > 3 ? NonEmptyInput(node, 3) : nullptr;
  Value* scales = sizes ? nullptr : NonEmptyInput(node, 2);
  if (!sizes && !scales) node.Fail(ErrorCode::kInvalidModel, "neither scales nor sizes is given");
  const std::string transform = node.attrs().String("coordinate_transformation_mode", "half_pixel");
  // roi only matters for tf_crop_and_resize.
  Value* roi = transform == "tf_crop_and_resize" ? NonEmptyInput(node, 1) : nullptr;
  if (transform == "tf_crop_and_resize" && !roi) {
    node.Fail(ErrorCode::kInvalidModel, "coordinate_transformation_mode tf_crop_and_resize needs the roi input");
  }
  Node* resize = node.AddMainNode({node.RequiredInput(0), roi, scales, sizes});
  resize->attrs().Set("mode", ReadMode(node));
  resize->attrs().Set("coordinate_transformation_mode", transform);
  resize->attrs().Set("nearest_mode", node.attrs().String("nearest_mode", "round_prefer_floor"));
  resize->attrs().Set("cubic_coeff_a", node.attrs().Float("cubic_coeff_a", -0.75f));
  resize->attrs().Set("exclude_outside", node.attrs().Int("exclude_outside", 0));
  resize->attrs().Set("extrapolation_value", node.attrs().Float("extrapolation_value", 0.0f));
  node.BindOutputs(resize);
}

// Resize-10 and Upsample-9: X, scales.
void TranslateResizeWithScalesInput(NodeTranslation& node) { AddScaledResize(node, node.RequiredInput(1)); }

// Upsample 7-8: the scales attribute.
void TranslateUpsampleWithScalesAttr(NodeTranslation& node) {
  const std::vector<float> scales = node.attrs().Floats("scales");
  if (scales.empty()) node.Fail(ErrorCode::kInvalidModel, "attribute 'scales' is missing");
  AddScaledResize(node, ScalesConstant(node, scales));
}

// Upsample 1-6: height_scale and width_scale of an NCHW input.
void TranslateUpsampleWithHeightWidth(NodeTranslation& node) {
  const float height = node.attrs().Float("height_scale", 0.0f), width = node.attrs().Float("width_scale", 0.0f);
  if (height <= 0 || width <= 0) {
    node.Fail(ErrorCode::kInvalidModel, "attributes 'height_scale' and 'width_scale' must be given and positive");
  }
  AddScaledResize(node, ScalesConstant(node, {1.0f, 1.0f, height, width}));
}

}  // namespace ge::onnx_import
