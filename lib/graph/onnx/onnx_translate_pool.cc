#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/onnx/onnx_window.h"

namespace ge::onnx_import {
namespace {

// kMaxWithIndices: MaxPool with its Indices output, MaxPoolWithArgmax.
enum class PoolKind { kMax, kMaxWithIndices, kAverage };

// Reads the window, resolves auto_pad and adds the pooling node with the
// attributes MaxPoolV3/MaxPool3D and AvgPoolV2/AvgPool3D share (the average
// ops have no dilations, nor has ONNX AveragePool before opset 19). 1-D
// windows run as 2-D ones of height 1 on the input unsqueezed at axis 2.
Node* AddPooling(NodeTranslation& node, PoolKind kind, size_t spatial) {
  const Shape input_shape = node.InputShape(0);
  Window window = ReadWindow(node, spatial, std::nullopt);
  // With SAME padding ONNX sizes the output as ceil(input / stride) whatever
  // ceil_mode says; the explicit pads below give exactly that with floor.
  const bool same = window.auto_pad == AutoPad::kSameUpper || window.auto_pad == AutoPad::kSameLower;
  ResolveAutoPad(node, input_shape, window);
  const Window lifted = LiftTo2D(window);
  const bool volumetric = lifted.spatial() == 3;
  Value* x = node.RequiredInput(0);
  if (spatial == 1) x = AddHeightAxis(node, x, "input");
  const char* op = kind == PoolKind::kMaxWithIndices ? "MaxPoolWithArgmax"
                   : kind == PoolKind::kMax          ? (volumetric ? "MaxPool3D" : "MaxPoolV3")
                                                     : (volumetric ? "AvgPool3D" : "AvgPoolV2");
  Node* pool = node.AddMainNodeAs(op, {x}, kind == PoolKind::kMaxWithIndices ? 2 : 1);
  pool->attrs().Set("ksize", AscendWindowAttr(lifted.kernel));
  pool->attrs().Set("strides", AscendWindowAttr(lifted.strides));
  pool->attrs().Set("pads", AscendPads(lifted));
  pool->attrs().Set("ceil_mode", !same && node.attrs().Int("ceil_mode", 0) != 0);
  pool->attrs().Set("data_format", AscendDataFormat(lifted.spatial()));
  if (kind != PoolKind::kAverage) {
    pool->attrs().Set("dilations", AscendWindowAttr(lifted.dilations));
    if (kind == PoolKind::kMaxWithIndices) pool->attrs().Set("storage_order", node.attrs().Int("storage_order", 0));
  } else {
    const bool include_pad = node.attrs().Int("count_include_pad", 0) != 0;
    if (volumetric) {
      pool->attrs().Set("count_include_pad", include_pad);
    } else {
      pool->attrs().Set("exclusive", !include_pad);
    }
  }
  return pool;
}

// Adds the pooling and binds its outputs, removing the height axis a 1-D
// window added (a 1-D index is the same in the plane of height 1).
void TranslatePool(NodeTranslation& node, PoolKind kind) {
  const size_t spatial = WindowSpatialRank(node, std::nullopt);
  Node* pool = AddPooling(node, kind, spatial);
  for (size_t i = 0; i < pool->num_outputs(); ++i) {
    node.BindOutput(i, spatial == 1 ? RemoveHeightAxis(node, pool->output(i), i) : pool->output(i));
  }
}

}  // namespace

// With the Indices output: MaxPoolWithArgmax, which keeps storage_order.
void TranslateMaxPool(NodeTranslation& node) {
  TranslatePool(node, node.HasOutput(1) ? PoolKind::kMaxWithIndices : PoolKind::kMax);
}

// MaxUnpool (opset 9, 11) -> MaxUnpool with the window in Ascend form; the
// optional output_shape input is passed on.
void TranslateMaxUnpool(NodeTranslation& node) {
  const size_t spatial = WindowSpatialRank(node, std::nullopt);
  const Window window = ReadWindow(node, spatial, std::nullopt);
  Node* unpool = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1),
                                   node.num_inputs() > 2 ? node.Input(2) : nullptr});
  unpool->attrs().Set("ksize", AscendWindowAttr(window.kernel));
  unpool->attrs().Set("strides", AscendWindowAttr(window.strides));
  unpool->attrs().Set("pads", AscendPads(window));
  node.BindOutputs(unpool);
}

void TranslateAveragePool(NodeTranslation& node) { TranslatePool(node, PoolKind::kAverage); }

// GlobalAveragePool / GlobalMaxPool -> ReduceMeanD / ReduceMaxD over the
// spatial axes, keeping them as 1s: no static shape is needed (AvgPoolV2's
// global_pooling would need ksize from the input shape).
void TranslateGlobalPool(NodeTranslation& node) {
  const size_t rank = node.InputRank(0).value_or(4);
  if (rank < 3) node.Fail(ErrorCode::kInvalidModel, fmt::format("input has rank {}; expected N, C and spatial dims", rank));
  std::vector<int64_t> axes;
  for (size_t axis = 2; axis < rank; ++axis) axes.push_back(static_cast<int64_t>(axis));
  Node* reduce = node.AddMainNode({node.RequiredInput(0)});
  reduce->attrs().Set("axes", axes);
  reduce->attrs().Set("keep_dims", true);
  node.BindOutputs(reduce);
}

}  // namespace ge::onnx_import
