#include <fmt/core.h>

#include <numeric>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

Value* AddInt64Constant(NodeTranslation& node, const std::string& suffix, const std::vector<int64_t>& values) {
  return node.AddHelperConstant(
      suffix, Tensor::FromVector(DataType::kInt64, Shape{static_cast<int64_t>(values.size())}, values));
}

void AddSplit(NodeTranslation& node, std::vector<int64_t> sizes) {
  const std::optional<size_t> rank = node.InputRank(0);
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", 0), rank, "attribute 'axis'");
  const auto parts = static_cast<int64_t>(node.num_outputs());
  if (sizes.empty()) {
    // No split sizes: equal parts, one per output.
    const Shape shape = node.InputShape(0);
    const int64_t dim = rank && axis >= 0 ? shape.dim(static_cast<size_t>(axis)) : Shape::kUnknownDim;
    if (dim < 0) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("an equal split needs the size of axis {}, but the input's shape is {}", axis,
                            shape.ToString()));
    }
    if (dim % parts != 0) {
      node.Fail(ErrorCode::kInvalidModel,
                fmt::format("axis {} of size {} cannot be split into {} equal parts", axis, dim, parts));
    }
    sizes.assign(static_cast<size_t>(parts), dim / parts);
  }
  if (static_cast<int64_t>(sizes.size()) != parts) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("'split' has {} sizes but the node has {} outputs", sizes.size(), parts));
  }
  Node* split = node.AddMainNode({node.RequiredInput(0)}, static_cast<size_t>(parts));
  split->attrs().Set("size_splits", std::move(sizes));
  split->attrs().Set("split_dim", axis);
  split->attrs().Set("num_split", parts);
  node.BindOutputs(split);
}

void AddUnsqueeze(NodeTranslation& node, std::vector<int64_t> axes) {
  // Negative axes count from the end of the output, which has rank + |axes| dims.
  std::optional<size_t> output_rank = node.InputRank(0);
  if (output_rank) *output_rank += axes.size();
  for (int64_t& axis : axes) axis = node.NormalizeAxis(axis, output_rank, "an entry of 'axes'");
  Node* unsqueeze = node.AddMainNode({node.RequiredInput(0)});
  unsqueeze->attrs().Set("axes", std::move(axes));
  node.BindOutputs(unsqueeze);
}

void AddSqueeze(NodeTranslation& node, std::vector<int64_t> axes) {
  for (int64_t& axis : axes) axis = node.NormalizeAxis(axis, node.InputRank(0), "an entry of 'axes'");
  Node* squeeze = node.AddMainNode({node.RequiredInput(0)});
  squeeze->attrs().Set("axis", std::move(axes));  // empty: every dim of size 1
  node.BindOutputs(squeeze);
}

// Squeeze/Unsqueeze whose axes are computed: they stay an input, which
// shape inference reads once it is known (at run time); the attribute is empty.
void AddRuntimeAxes(NodeTranslation& node, const char* attr) {
  Node* op = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  op->attrs().Set(attr, std::vector<int64_t>{});
  node.BindOutputs(op);
}

}  // namespace

void TranslateFlatten(NodeTranslation& node) {
  int64_t axis = node.attrs().Int("axis", 1);
  // axis may equal the rank (all dims go to the first factor), so only negative ones are mapped.
  if (const std::optional<size_t> rank = node.InputRank(0); rank && axis < 0) {
    axis = node.NormalizeAxis(axis, rank, "attribute 'axis'");
  }
  Node* flatten = node.AddMainNode({node.RequiredInput(0)});
  flatten->attrs().Set("axis", axis);
  node.BindOutputs(flatten);
}

void TranslateReshape(NodeTranslation& node) {
  Node* reshape = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  reshape->attrs().Set("allowzero", node.attrs().Int("allowzero", 0));
  node.BindOutputs(reshape);
}

// Reshape before opset 5 takes the shape as attribute 'shape'.
void TranslateReshapeWithAttr(NodeTranslation& node) {
  if (!node.attrs().Has("shape")) node.Fail(ErrorCode::kInvalidModel, "attribute 'shape' is missing");
  const std::vector<int64_t> shape = node.attrs().Ints("shape");
  Value* shape_value = node.AddHelperConstant(
      "shape", Tensor::FromVector(DataType::kInt64, Shape{static_cast<int64_t>(shape.size())}, shape));
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), shape_value}));
}

void TranslateTranspose(NodeTranslation& node) {
  std::vector<int64_t> perm = node.attrs().Ints("perm");
  if (perm.empty()) {
    // ONNX's default reverses the dims, which needs the rank.
    const std::optional<size_t> rank = node.InputRank(0);
    if (!rank) node.Fail(ErrorCode::kUnsupported, "without attribute 'perm' the input's rank must be known");
    perm.resize(*rank);
    std::iota(perm.rbegin(), perm.rend(), 0);
  }
  Node* transpose = node.AddMainNode({node.RequiredInput(0)});
  transpose->attrs().Set("perm", std::move(perm));
  node.BindOutputs(transpose);
}

void TranslateConcat(NodeTranslation& node) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.RequiredInput(i));
  // 'axis' is required from opset 4 on; before, it defaults to 1.
  const int64_t default_axis = node.opset() < 4 ? 1 : 0;
  const int64_t axis =
      node.NormalizeAxis(node.attrs().Int("axis", default_axis), node.InputRank(0), "attribute 'axis'");
  Node* concat = node.AddMainNode(inputs);
  concat->attrs().Set("concat_dim", axis);
  concat->attrs().Set("N", static_cast<int64_t>(inputs.size()));
  node.BindOutputs(concat);
}

// Opset 1 may give the sizes as a (constant) second input instead of the attribute.
void TranslateSplitWithAttr(NodeTranslation& node) {
  AddSplit(node, node.Input(1) ? node.ConstantInts(1, "split") : node.attrs().Ints("split"));
}

void TranslateSplitWithInput(NodeTranslation& node) {
  if (node.Input(1) && node.InputConstant(1) == nullptr) {
    // Computed sizes stay an input that shape inference reads at run time.
    const auto parts = static_cast<int64_t>(node.num_outputs());
    Node* split = node.AddMainNode({node.RequiredInput(0), node.Input(1)}, static_cast<size_t>(parts));
    split->attrs().Set("size_splits", std::vector<int64_t>{});
    split->attrs().Set("split_dim",
                       node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'"));
    split->attrs().Set("num_split", parts);
    node.BindOutputs(split);
    return;
  }
  AddSplit(node, node.Input(1) ? node.ConstantInts(1, "split") : std::vector<int64_t>{});
}

// Slice before opset 10 has starts/ends/axes attributes; they become the
// constant inputs StridedSliceV2 takes.
void TranslateSliceWithAttrs(NodeTranslation& node) {
  Value* begin = AddInt64Constant(node, "starts", node.attrs().Ints("starts"));
  Value* end = AddInt64Constant(node, "ends", node.attrs().Ints("ends"));
  Value* axes = node.attrs().Has("axes") ? AddInt64Constant(node, "axes", node.attrs().Ints("axes")) : nullptr;
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), begin, end, axes}));
}

void TranslateSliceWithInputs(NodeTranslation& node) {
  node.BindOutputs(node.AddMainNode(
      {node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2), node.Input(3), node.Input(4)}));
}

void TranslateGather(NodeTranslation& node) {
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", 0), node.InputRank(0), "attribute 'axis'");
  Node* gather = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1)});
  gather->attrs().Set("axis", axis);
  node.BindOutputs(gather);
}

// Shape; from opset 15 start/end select a range of the dims, done by a StridedSliceV2 on the result.
void TranslateShape(NodeTranslation& node) {
  Node* shape = node.AddMainNode({node.RequiredInput(0)});
  const bool has_end = node.attrs().Has("end");
  const int64_t start = node.attrs().Int("start", 0);
  if (start == 0 && !has_end) {
    node.BindOutputs(shape);
    return;
  }
  Value* begin = AddInt64Constant(node, "start", {start});
  Value* end = AddInt64Constant(node, "end", {has_end ? node.attrs().Int("end", 0) : INT64_MAX});
  node.BindOutputs(node.AddHelperNode("StridedSliceV2", "range", {shape->output(0), begin, end}));
}

void TranslateUnsqueezeWithAttr(NodeTranslation& node) { AddUnsqueeze(node, node.attrs().Ints("axes")); }
void TranslateUnsqueezeWithInput(NodeTranslation& node) {
  if (node.InputConstant(1) == nullptr) {
    AddRuntimeAxes(node, "axes");
    return;
  }
  AddUnsqueeze(node, node.ConstantInts(1, "axes"));
}

void TranslateSqueezeWithAttr(NodeTranslation& node) { AddSqueeze(node, node.attrs().Ints("axes")); }
void TranslateSqueezeWithInput(NodeTranslation& node) {
  if (node.Input(1) && node.InputConstant(1) == nullptr) {
    AddRuntimeAxes(node, "axis");
    return;
  }
  AddSqueeze(node, node.Input(1) ? node.ConstantInts(1, "axes") : std::vector<int64_t>{});
}

}  // namespace ge::onnx_import
