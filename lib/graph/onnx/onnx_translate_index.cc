// Translators of the ONNX ops that address elements by index or produce
// indices: GatherElements, GatherND, Scatter/ScatterElements, ScatterND,
// TopK, ArgMax/ArgMin, CumSum, Compress, ReverseSequence, Unique. (NonZero
// translates directly.)
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

Value* Int64Constant(NodeTranslation& node, const std::string& suffix, const std::vector<int64_t>& values,
                     bool scalar = false) {
  const Shape shape = scalar ? Shape{} : Shape{static_cast<int64_t>(values.size())};
  return node.AddHelperConstant(suffix, Tensor::FromVector(DataType::kInt64, shape, values));
}

void AddTopK(NodeTranslation& node, Value* k) {
  Node* top_k = node.AddMainNode({node.RequiredInput(0), k}, 2);
  top_k->attrs().Set("dim", node.attrs().Int("axis", -1));
  top_k->attrs().Set("largest", node.attrs().Int("largest", 1) != 0);
  top_k->attrs().Set("sorted", node.attrs().Int("sorted", 1) != 0);
  node.BindOutputs(top_k);
}

}  // namespace

void TranslateGatherElements(NodeTranslation& node) {
  Node* gather = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  gather->attrs().Set("dim", node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'"));
  node.BindOutputs(gather);
}

void TranslateGatherNd(NodeTranslation& node) {
  Node* gather = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  gather->attrs().Set("batch_dims", node.attrs().Int("batch_dims", 0));
  node.BindOutputs(gather);
}

// Scatter (opsets 9-10) and ScatterElements: the same op, reduction from opset 16.
void TranslateScatterElements(NodeTranslation& node) {
  Node* scatter = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2)});
  scatter->attrs().Set("axis", node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'"));
  scatter->attrs().Set("reduction", node.attrs().String("reduction", "none"));
  node.BindOutputs(scatter);
}

void TranslateScatterNd(NodeTranslation& node) {
  Node* scatter = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2)});
  scatter->attrs().Set("reduction", node.attrs().String("reduction", "none"));
  node.BindOutputs(scatter);
}

// TopK before opset 10: k is an attribute.
void TranslateTopKWithAttr(NodeTranslation& node) {
  AddTopK(node, Int64Constant(node, "k", {node.attrs().Int("k", 0)}));
}

void TranslateTopKWithInput(NodeTranslation& node) { AddTopK(node, node.RequiredInput(1)); }

// ArgMax/ArgMin -> ArgMaxV2/ArgMinV2 (which drop the axis) and, with
// keepdims, an Unsqueeze that puts it back.
void TranslateArgReduce(NodeTranslation& node) {
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'");
  const bool keepdims = node.attrs().Int("keepdims", 1) != 0;
  if (keepdims && axis < 0) {
    node.Fail(ErrorCode::kUnsupported, "keepdims with a negative axis needs the input's rank");
  }
  Node* arg = node.AddMainNode({node.RequiredInput(0), Int64Constant(node, "dimension", {axis}, true)});
  arg->attrs().Set("dtype", static_cast<int64_t>(DataType::kInt64));
  arg->attrs().Set("select_last_index", node.attrs().Int("select_last_index", 0) != 0);
  if (!keepdims) {
    node.BindOutputs(arg);
    return;
  }
  Node* unsqueeze = node.AddHelperNode("Unsqueeze", "keepdims", {arg->output(0)});
  unsqueeze->attrs().Set("axes", std::vector<int64_t>{axis});
  node.BindOutputs(unsqueeze);
}

void TranslateCumSum(NodeTranslation& node) {
  Node* cumsum = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  cumsum->attrs().Set("exclusive", node.attrs().Int("exclusive", 0) != 0);
  cumsum->attrs().Set("reverse", node.attrs().Int("reverse", 0) != 0);
  node.BindOutputs(cumsum);
}

// Compress: the positions of the true conditions (NonZero, flattened) gather
// along axis, or from the flattened input without one.
void TranslateCompress(NodeTranslation& node) {
  Value* flat = Int64Constant(node, "flat", {-1});
  Node* nonzero = node.AddHelperNode("NonZero", "positions", {node.RequiredInput(1)});
  Node* positions = node.AddHelperNode("Reshape", "positions_flat", {nonzero->output(0), flat});
  Value* x = node.RequiredInput(0);
  int64_t axis = 0;
  if (node.attrs().Has("axis")) {
    axis = node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'");
  } else {
    x = node.AddHelperNode("Reshape", "x_flat", {x, flat})->output(0);
  }
  Node* gather = node.AddMainNode({x, positions->output(0)});
  gather->attrs().Set("axis", axis);
  node.BindOutputs(gather);
}

void TranslateReverseSequence(NodeTranslation& node) {
  Node* reverse = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  reverse->attrs().Set("seq_dim", node.attrs().Int("time_axis", 0));
  reverse->attrs().Set("batch_dim", node.attrs().Int("batch_axis", 1));
  node.BindOutputs(reverse);
}

// Unique: all four outputs exist in ge; those the model leaves out stay unbound.
void TranslateUnique(NodeTranslation& node) {
  Node* unique = node.AddMainNode({node.RequiredInput(0)}, 4);
  unique->attrs().Set("sorted", node.attrs().Int("sorted", 1) != 0);
  if (node.attrs().Has("axis")) {
    unique->attrs().Set("axis",
                        std::vector<int64_t>{node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0),
                                                                "attribute 'axis'")});
  }
  node.BindOutputs(unique);
}

}  // namespace ge::onnx_import
