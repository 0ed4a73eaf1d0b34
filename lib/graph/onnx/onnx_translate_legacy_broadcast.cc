// Broadcasting before opset 7. Binary ops (Add, Sub, Mul, Div, Pow, And, ...)
// broadcast only with attribute `broadcast` = 1, and then B's dims line up
// with A's starting at `axis` (without `axis`, with A's last dims: numpy's
// suffix rule). PRelu's slope of one dim is per channel (axis 1). Giving B
// trailing 1-dims turns these rules into numpy broadcasting, which the ge ops
// implement.
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

// Input 1 reshaped so that its dims cover input 0's dims from `axis` on.
Value* AlignAt(NodeTranslation& node, int64_t axis_attr, const std::string& what) {
  Value* b = node.RequiredInput(1);
  const std::optional<size_t> rank_a = node.InputRank(0);
  const std::optional<size_t> rank_b = node.InputRank(1);
  if (!rank_a || !rank_b) node.Fail(ErrorCode::kUnsupported, fmt::format("{} needs the ranks of both inputs", what));
  const auto axis = static_cast<size_t>(node.NormalizeAxis(axis_attr, rank_a, what));
  if (axis + *rank_b > *rank_a) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("input 1 of rank {} does not fit input 0 of rank {} from axis {} ({})", *rank_b, *rank_a,
                          axis, what));
  }
  std::vector<int64_t> trailing;
  for (size_t d = *rank_b; d < *rank_a - axis; ++d) trailing.push_back(static_cast<int64_t>(d));
  if (trailing.empty()) return b;
  Node* unsqueeze = node.AddHelperNode("Unsqueeze", "align", {b});
  unsqueeze->attrs().Set("axes", std::move(trailing));
  return unsqueeze->output(0);
}

}  // namespace

void TranslateLegacyBroadcastBinary(NodeTranslation& node) {
  Value* b = node.RequiredInput(1);
  if (node.attrs().Int("broadcast", 0) != 0 && node.attrs().Has("axis")) {
    b = AlignAt(node, node.attrs().Int("axis", 0), "attribute 'axis' with 'broadcast' = 1");
  }
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), b}));
}

void TranslateLegacyPRelu(NodeTranslation& node) {
  Value* slope = node.RequiredInput(1);
  const Shape slope_shape = node.InputShape(1);
  // A slope of one element broadcasts as is; a 1-D slope of C values is per channel.
  const bool per_channel = !slope_shape.unknown_rank() && slope_shape.rank() == 1 && slope_shape.dims()[0] != 1;
  if (per_channel && node.InputRank(0).value_or(0) >= 2) slope = AlignAt(node, 1, "a per-channel slope");
  node.BindOutputs(node.AddMainNode({node.RequiredInput(0), slope}));
}

}  // namespace ge::onnx_import
