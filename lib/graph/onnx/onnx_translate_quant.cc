// QuantizeLinear, DequantizeLinear, ConvInteger and QLinearConv. The ge ops
// keep ONNX's inputs (docs/op-set.md says why); MatMulInteger and
// QLinearMatMul translate directly.
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/onnx/onnx_window.h"

namespace ge::onnx_import {
namespace {

// Spatial dims of the filter (input `filter`) when known: the fallback for a missing kernel_shape.
std::optional<std::array<int64_t, 2>> FilterKernel(const NodeTranslation& node, size_t filter) {
  const Shape shape = node.InputShape(filter);
  if (shape.unknown_rank()) return std::nullopt;
  if (shape.rank() != 4) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("the filter has shape {}; only 2-D convolutions (4-D filters) are supported",
                          shape.ToString()));
  }
  if (shape.dim(2) < 0 || shape.dim(3) < 0) return std::nullopt;
  return std::array<int64_t, 2>{shape.dim(2), shape.dim(3)};
}

// The convolution with its inputs as in ONNX and Conv2D's window attributes.
void TranslateIntegerConv(NodeTranslation& node, size_t filter) {
  const Shape input_shape = node.InputShape(0);
  RequireNchwInput(node, input_shape);
  Window2D window = ReadWindow2D(node, FilterKernel(node, filter));
  ResolveAutoPad(node, input_shape, window);
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.Input(i));
  Node* conv = node.AddMainNode(inputs);
  conv->attrs().Set("strides", AscendNchw(window.strides));
  conv->attrs().Set("pads", AscendPads(window));
  conv->attrs().Set("dilations", AscendNchw(window.dilations));
  conv->attrs().Set("groups", node.attrs().Int("group", 1));
  conv->attrs().Set("data_format", std::string("NCHW"));
  node.BindOutputs(conv);
}

}  // namespace

// Opsets 10-12 quantize per tensor; opset 13 adds the 'axis' attribute
// (default 1) for per-axis scales and zero points.
void TranslateLinearQuantization(NodeTranslation& node) {
  Node* quant = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.Input(2)});
  quant->attrs().Set("axis", node.attrs().Int("axis", 1));
  node.BindOutputs(quant);
}

void TranslateConvInteger(NodeTranslation& node) { TranslateIntegerConv(node, 1); }

void TranslateQLinearConv(NodeTranslation& node) { TranslateIntegerConv(node, 3); }

}  // namespace ge::onnx_import
