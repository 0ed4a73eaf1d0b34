// NegativeLogLikelihoodLoss -> NLLLoss; SoftmaxCrossEntropyLoss ->
// LogSoftmaxV2 over the class axis + NLLLoss (ONNX's own function body), whose
// optional second output log_prob is the LogSoftmaxV2 result.
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/ops/loss_ops.h"

namespace ge::onnx_import {
namespace {

// The NLLLoss main node over log-probabilities `log_prob`, with the ONNX
// node's target (input 1), optional weight (input 2) and attributes.
Node* AddNllLoss(NodeTranslation& node, Value* log_prob) {
  Node* loss = node.AddMainNode({log_prob, node.RequiredInput(1), node.Input(2)});
  loss->attrs().Set("reduction", node.attrs().String("reduction", "mean"));
  loss->attrs().Set("ignore_index",
                    node.attrs().Has("ignore_index") ? node.attrs().Int("ignore_index", 0) : kNllLossNoIgnoreIndex);
  return loss;
}

}  // namespace

void TranslateNegativeLogLikelihoodLoss(NodeTranslation& node) {
  node.BindOutput(0, AddNllLoss(node, node.RequiredInput(0))->output(0));
}

void TranslateSoftmaxCrossEntropyLoss(NodeTranslation& node) {
  Node* log_softmax = node.AddHelperNode("LogSoftmaxV2", "log_prob", {node.RequiredInput(0)});
  log_softmax->attrs().Set("axes", std::vector<int64_t>{1});
  node.BindOutput(0, AddNllLoss(node, log_softmax->output(0))->output(0));
  if (node.HasOutput(1)) node.BindOutput(1, log_softmax->output(0));
}

}  // namespace ge::onnx_import
