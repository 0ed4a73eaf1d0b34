// Translators of the ONNX detection and sampling ops: NonMaxSuppression,
// RoiAlign, GridSample (docs/op-set.md: NonMaxSuppressionV6, ROIAlign,
// GridSampler2D).
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {

// Inputs keep their order; absent optional inputs stay absent.
void TranslateNonMaxSuppression(NodeTranslation& node) {
  Node* nms = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.Input(2), node.Input(3),
                                node.Input(4)});
  nms->attrs().Set("center_point_box", node.attrs().Int("center_point_box", 0));
  node.BindOutputs(nms);
}

// Opset 10 has no coordinate_transformation_mode and behaves as
// output_half_pixel (no half-pixel shift, rois at least one pixel); opset 16
// added the attribute with the default half_pixel.
void TranslateRoiAlign(NodeTranslation& node) {
  Node* roi_align = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2)});
  auto& attrs = roi_align->attrs();
  attrs.Set("spatial_scale", node.attrs().Float("spatial_scale", 1.0f));
  attrs.Set("pooled_height", node.attrs().Int("output_height", 1));
  attrs.Set("pooled_width", node.attrs().Int("output_width", 1));
  attrs.Set("sample_num", node.attrs().Int("sampling_ratio", 0));
  attrs.Set("mode", node.attrs().String("mode", "avg"));
  const char* default_transform = node.opset() >= 16 ? "half_pixel" : "output_half_pixel";
  attrs.Set("coordinate_transformation_mode", node.attrs().String("coordinate_transformation_mode", default_transform));
  node.BindOutputs(roi_align);
}

void TranslateGridSample(NodeTranslation& node) {
  Node* sampler = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  sampler->attrs().Set("interpolation_mode", node.attrs().String("mode", "bilinear"));
  sampler->attrs().Set("padding_mode", node.attrs().String("padding_mode", "zeros"));
  sampler->attrs().Set("align_corners", node.attrs().Int("align_corners", 0) != 0);
  node.BindOutputs(sampler);
}

}  // namespace ge::onnx_import
