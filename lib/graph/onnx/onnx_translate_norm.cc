#include <fmt/format.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// Only the first output of these ops is translated; the statistics outputs
// exist for training.
void RequireOnlyFirstOutput(const NodeTranslation& node) {
  for (size_t i = 1; i < node.num_outputs(); ++i) {
    if (node.HasOutput(i)) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("output {} ('{}') is not supported; only the normalized output Y is (inference)", i,
                            node.proto().output(static_cast<int>(i))));
    }
  }
}

}  // namespace

void TranslateBatchNormalization(NodeTranslation& node) {
  RequireOnlyFirstOutput(node);
  if (node.attrs().Int("spatial", 1) != 1) {
    node.Fail(ErrorCode::kUnsupported, "attribute 'spatial' = 0 (per-activation statistics) is not supported");
  }
  if (node.attrs().Int("training_mode", 0) != 0) {
    node.Fail(ErrorCode::kUnsupported, "attribute 'training_mode' = 1 is not supported; only inference is");
  }
  Node* bn = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2),
                               node.RequiredInput(3), node.RequiredInput(4)});
  bn->attrs().Set("epsilon", node.attrs().Float("epsilon", 1e-5f));
  bn->attrs().Set("data_format", std::string("NCHW"));
  bn->attrs().Set("is_training", false);
  node.BindOutputs(bn);
}

// LayerNormalization (opset 17) -> LayerNorm normalizing and scaling from
// `axis` on. LayerNorm needs beta: a missing B becomes zeros shaped like Scale.
void TranslateLayerNormalization(NodeTranslation& node) {
  RequireOnlyFirstOutput(node);
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", -1), node.InputRank(0), "attribute 'axis'");
  Value* beta = node.Input(2);
  if (!beta) {
    const Shape scale_shape = node.InputShape(1);
    if (!scale_shape.IsStatic() || node.InputDType(1) == DataType::kUndefined) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("without input B the Scale's shape must be known to make a zero bias; it is {}",
                            scale_shape.ToString()));
    }
    beta = node.AddHelperConstant("zero_bias", Tensor(node.InputDType(1), scale_shape));
  }
  Node* norm = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), beta});
  norm->attrs().Set("begin_norm_axis", axis);
  norm->attrs().Set("begin_params_axis", axis);
  norm->attrs().Set("epsilon", node.attrs().Float("epsilon", 1e-5f));
  node.BindOutputs(norm);
}

// Softmax before opset 13 coerces the input to 2-D at `axis` (default 1) and
// normalizes each row of [prod(d < axis), prod(d >= axis)]. When axis is the
// last dim that is SoftmaxV2 over it; otherwise Flatten -> SoftmaxV2 over the
// rows -> Reshape back to the input's shape (taken at run time by Shape).
void TranslateSoftmax2D(NodeTranslation& node) {
  Value* x = node.RequiredInput(0);
  const std::optional<size_t> rank = node.InputRank(0);
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", 1), rank, "attribute 'axis'");
  if (rank && axis == static_cast<int64_t>(*rank) - 1) {
    Node* softmax = node.AddMainNode({x});
    softmax->attrs().Set("axes", std::vector<int64_t>{-1});
    node.BindOutputs(softmax);
    return;
  }
  Node* flatten = node.AddHelperNode("Flatten", "flatten", {x});
  flatten->attrs().Set("axis", axis);
  Node* softmax = node.AddMainNode({flatten->output(0)});
  softmax->attrs().Set("axes", std::vector<int64_t>{-1});
  Node* shape = node.AddHelperNode("Shape", "input_shape", {x});
  Node* reshape = node.AddHelperNode("Reshape", "reshape", {softmax->output(0), shape->output(0)});
  node.BindOutputs(reshape);
}

// Softmax from opset 13 normalizes along the single axis `axis` (default -1).
void TranslateSoftmaxAxis(NodeTranslation& node) {
  const int64_t axis = node.NormalizeAxis(node.attrs().Int("axis", -1), node.InputRank(0), "attribute 'axis'");
  Node* softmax = node.AddMainNode({node.RequiredInput(0)});
  softmax->attrs().Set("axes", std::vector<int64_t>{axis});
  node.BindOutputs(softmax);
}

}  // namespace ge::onnx_import
