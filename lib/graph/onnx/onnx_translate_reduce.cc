#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// ReduceXD over `axes` (empty = all axes) with ONNX's keepdims (default 1).
void AddReduce(NodeTranslation& node, std::vector<int64_t> axes) {
  const std::optional<size_t> rank = node.InputRank(0);
  for (int64_t& axis : axes) axis = node.NormalizeAxis(axis, rank, "an entry of 'axes'");
  Node* reduce = node.AddMainNode({node.RequiredInput(0)});
  reduce->attrs().Set("axes", std::move(axes));
  reduce->attrs().Set("keep_dims", node.attrs().Int("keepdims", 1) != 0);
  node.BindOutputs(reduce);
}

}  // namespace

void TranslateReduceWithAxesAttr(NodeTranslation& node) { AddReduce(node, node.attrs().Ints("axes")); }

// ReduceSum from opset 13: axes is an optional input. Constant (or absent)
// axes give ReduceSumD, where empty axes reduce everything unless
// noop_with_empty_axes makes the node an Identity; axes computed at run time
// give ReduceSum, which reads them then.
void TranslateReduceWithAxesInput(NodeTranslation& node) {
  const bool noop = node.attrs().Int("noop_with_empty_axes", 0) != 0;
  if (node.Input(1) && !node.InputConstant(1)) {
    Node* reduce = node.AddMainNodeAs("ReduceSum", {node.RequiredInput(0), node.RequiredInput(1)});
    reduce->attrs().Set("keep_dims", node.attrs().Int("keepdims", 1) != 0);
    reduce->attrs().Set("noop_with_empty_axes", noop);
    node.BindOutputs(reduce);
    return;
  }
  std::vector<int64_t> axes = node.Input(1) ? node.ConstantInts(1, "axes") : std::vector<int64_t>{};
  if (axes.empty() && noop) {
    node.BindOutputs(node.AddMainNodeAs("Identity", {node.RequiredInput(0)}));
    return;
  }
  AddReduce(node, std::move(axes));
}

}  // namespace ge::onnx_import
