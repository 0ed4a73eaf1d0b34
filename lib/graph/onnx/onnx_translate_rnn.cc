// RNN, GRU and LSTM -> CommonRNN, CommonGRU, CommonLSTM: same inputs and
// outputs, the ONNX attributes copied (names and meanings are the same).
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// hidden_size, or the last dim of R ([dirs, gates*hidden, hidden]) when the attribute is absent.
int64_t HiddenSize(const NodeTranslation& node) {
  if (node.attrs().Has("hidden_size")) return node.attrs().Int("hidden_size", 0);
  const Shape r = node.InputShape(2);
  if (r.unknown_rank() || r.rank() != 3 || r.dim(2) < 0) {
    node.Fail(ErrorCode::kInvalidModel, "attribute 'hidden_size' is missing and R's shape is unknown");
  }
  return r.dim(2);
}

std::vector<std::string> Strings(const NodeTranslation& node, const std::string& name) {
  const onnx::AttributeProto* attr = node.attrs().Find(name);
  if (!attr) return {};
  if (attr->type() != onnx::AttributeProto::STRINGS) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute '{}' must be a list of strings", name));
  }
  return {attr->strings().begin(), attr->strings().end()};
}

}  // namespace

void TranslateRecurrent(NodeTranslation& node) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.Input(i));
  const bool lstm = node.proto().op_type() == "LSTM";
  Node* cell = node.AddMainNode(inputs, lstm ? 3 : 2);
  AttrMap& attrs = cell->attrs();
  attrs.Set("hidden_size", HiddenSize(node));
  attrs.Set("direction", node.attrs().String("direction", "forward"));
  attrs.Set("activations", Strings(node, "activations"));
  attrs.Set("activation_alpha", node.attrs().Floats("activation_alpha"));
  attrs.Set("activation_beta", node.attrs().Floats("activation_beta"));
  // ONNX clip is positive when present; 0 means no clipping here.
  attrs.Set("clip", node.attrs().Float("clip", 0.0f));
  attrs.Set("layout", node.attrs().Int("layout", 0));
  if (node.proto().op_type() == "GRU") attrs.Set("linear_before_reset", node.attrs().Int("linear_before_reset", 0));
  if (lstm) attrs.Set("input_forget", node.attrs().Int("input_forget", 0));
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    if (node.HasOutput(i)) node.BindOutput(i, cell->output(i));
  }
}

}  // namespace ge::onnx_import
