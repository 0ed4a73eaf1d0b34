#include <fmt/format.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/onnx/onnx_window.h"
#include "graph/shape_inference_utils.h"

namespace ge::onnx_import {
namespace {

// The filter's spatial dims when its shape is known, the fallback for a missing kernel_shape.
std::optional<std::array<int64_t, 2>> FilterKernel(const NodeTranslation& node) {
  const Shape filter = node.InputShape(1);
  if (filter.unknown_rank()) return std::nullopt;
  if (filter.rank() != 4) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("the filter has shape {}; only 2-D convolutions (4-D filters) are supported",
                          filter.ToString()));
  }
  if (filter.dim(2) < 0 || filter.dim(3) < 0) return std::nullopt;
  return std::array<int64_t, 2>{filter.dim(2), filter.dim(3)};
}

void SetWindowAttrs(Node* conv, const Window2D& window, int64_t groups) {
  conv->attrs().Set("strides", AscendNchw(window.strides));
  conv->attrs().Set("pads", AscendPads(window));
  conv->attrs().Set("dilations", AscendNchw(window.dilations));
  conv->attrs().Set("groups", groups);
  conv->attrs().Set("data_format", std::string("NCHW"));
}

// Static dim `axis` of input `input`, or a kUnsupported failure saying why it is needed.
int64_t RequireStaticDim(const NodeTranslation& node, size_t input, size_t axis, const char* why) {
  const Shape shape = node.InputShape(input);
  if (shape.unknown_rank() || axis >= shape.rank() || shape.dim(axis) < 0) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("input {} has shape {}; dim {} must be known to {}", input,
                                                   shape.ToString(), axis, why));
  }
  return shape.dim(axis);
}

}  // namespace

void TranslateConv(NodeTranslation& node) {
  const Shape input_shape = node.InputShape(0);
  RequireNchwInput(node, input_shape);
  Window2D window = ReadWindow2D(node, FilterKernel(node));
  ResolveAutoPad(node, input_shape, window);
  Node* conv = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.Input(2)});
  SetWindowAttrs(conv, window, node.attrs().Int("group", 1));
  node.BindOutputs(conv);
}

// Conv2DTranspose takes the output shape as a constant input (input_size), so
// the ONNX rules that derive it (output_shape, output_padding, auto_pad) are
// applied here and the pads are made explicit.
void TranslateConvTranspose(NodeTranslation& node) {
  RequireNchwInput(node, node.InputShape(0));
  Window2D window = ReadWindow2D(node, FilterKernel(node));
  const int64_t groups = node.attrs().Int("group", 1);
  std::vector<int64_t> output_padding = node.attrs().Ints("output_padding", {0, 0});
  std::vector<int64_t> output_shape = node.attrs().Ints("output_shape");
  if (output_padding.size() != 2) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("attribute 'output_padding' has {} values; 2-D convolutions take 2", output_padding.size()));
  }
  // output_shape lists the spatial dims; some exporters write the full NCHW shape.
  if (output_shape.size() == 4) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != 2) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("attribute 'output_shape' has {} values; expected 2 spatial dims", output_shape.size()));
  }
  const char* why = "compute the output shape (input_size)";
  const int64_t batch = RequireStaticDim(node, 0, 0, why);
  const int64_t out_channels = RequireStaticDim(node, 1, 1, why) * groups;

  std::vector<int64_t> spatial(2);
  for (size_t axis = 0; axis < 2; ++axis) {
    const int64_t input = RequireStaticDim(node, 0, axis + 2, why);
    const int64_t stride = window.strides[axis];
    const int64_t extent = (window.kernel[axis] - 1) * window.dilations[axis] + 1;
    const int64_t full = stride * (input - 1) + output_padding[axis] + extent;  // output with zero pads
    if (!output_shape.empty() || window.auto_pad == AutoPad::kSameUpper || window.auto_pad == AutoPad::kSameLower) {
      spatial[axis] = output_shape.empty() ? input * stride : output_shape[axis];
      const int64_t total = full - spatial[axis];
      if (total < 0) {
        node.Fail(ErrorCode::kUnsupported,
                  fmt::format("output size {} along spatial axis {} exceeds the {} a transposed convolution makes "
                              "without padding",
                              spatial[axis], axis, full));
      }
      // ONNX: SAME_UPPER puts an odd pixel of padding at the end; SAME_LOWER and output_shape at the beginning.
      const int64_t begin = window.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      window.pads[axis] = begin;
      window.pads[axis + 2] = total - begin;
    } else {
      if (window.auto_pad == AutoPad::kValid) window.pads = {0, 0, 0, 0};
      spatial[axis] = ConvTransposeOutputDim(input, window.kernel[axis], stride, window.pads[axis],
                                             window.pads[axis + 2], window.dilations[axis], output_padding[axis]);
      if (spatial[axis] <= 0) {
        node.Fail(ErrorCode::kInvalidModel,
                  fmt::format("the pads leave an output of size {} along spatial axis {}", spatial[axis], axis));
      }
    }
  }
  const std::vector<int32_t> size = {static_cast<int32_t>(batch), static_cast<int32_t>(out_channels),
                                     static_cast<int32_t>(spatial[0]), static_cast<int32_t>(spatial[1])};
  Value* input_size = node.AddHelperConstant("input_size", Tensor::FromVector(DataType::kInt32, Shape{4}, size));
  Node* conv = node.AddMainNode({input_size, node.RequiredInput(0), node.RequiredInput(1), node.Input(2)});
  SetWindowAttrs(conv, window, groups);
  conv->attrs().Set("output_padding", std::vector<int64_t>{0, 0, output_padding[0], output_padding[1]});
  node.BindOutputs(conv);
}

}  // namespace ge::onnx_import
