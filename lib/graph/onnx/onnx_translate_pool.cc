#include <fmt/format.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/onnx/onnx_window.h"

namespace ge::onnx_import {
namespace {

// Reads the window, resolves auto_pad and adds the pooling node with the
// attributes MaxPoolV3 and AvgPoolV2 share (AvgPoolV2 has no dilations, nor
// has ONNX AveragePool before opset 19).
Node* AddPooling(NodeTranslation& node, bool with_dilations) {
  const Shape input_shape = node.InputShape(0);
  RequireNchwInput(node, input_shape);
  Window2D window = ReadWindow2D(node, std::nullopt);
  // With SAME padding ONNX sizes the output as ceil(input / stride) whatever
  // ceil_mode says; the explicit pads below give exactly that with floor.
  const bool same = window.auto_pad == AutoPad::kSameUpper || window.auto_pad == AutoPad::kSameLower;
  ResolveAutoPad(node, input_shape, window);
  Node* pool = node.AddMainNode({node.RequiredInput(0)});
  pool->attrs().Set("ksize", AscendNchw(window.kernel));
  pool->attrs().Set("strides", AscendNchw(window.strides));
  pool->attrs().Set("pads", AscendPads(window));
  pool->attrs().Set("ceil_mode", !same && node.attrs().Int("ceil_mode", 0) != 0);
  pool->attrs().Set("data_format", std::string("NCHW"));
  if (with_dilations) pool->attrs().Set("dilations", AscendNchw(window.dilations));
  return pool;
}

}  // namespace

void TranslateMaxPool(NodeTranslation& node) {
  if (node.HasOutput(1)) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("the optional output Indices ('{}') is not supported; only the pooled values are",
                          node.proto().output(1)));
  }
  // storage_order only affects Indices, so it is ignored.
  node.BindOutputs(AddPooling(node, /*with_dilations=*/true));
}

void TranslateAveragePool(NodeTranslation& node) {
  Node* pool = AddPooling(node, /*with_dilations=*/false);
  pool->attrs().Set("exclusive", node.attrs().Int("count_include_pad", 0) == 0);
  node.BindOutputs(pool);
}

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
