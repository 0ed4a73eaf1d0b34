#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/onnx/onnx_translators.h"
#include "graph/onnx/onnx_window.h"
#include "graph/shape_inference_utils.h"

namespace ge::onnx_import {
namespace {

constexpr int64_t kMaxInt32 = 2147483647;

// The filter's spatial rank when its rank is known.
std::optional<size_t> FilterSpatialRank(const NodeTranslation& node) {
  const Shape filter = node.InputShape(1);
  if (filter.unknown_rank() || filter.rank() < 3) return std::nullopt;
  return filter.rank() - 2;
}

// The filter's spatial dims when they are known, the fallback for a missing kernel_shape.
std::optional<std::vector<int64_t>> FilterKernel(const NodeTranslation& node, size_t spatial) {
  const Shape filter = node.InputShape(1);
  if (filter.unknown_rank()) return std::nullopt;
  if (filter.rank() != spatial + 2) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("the filter has shape {}; the input has {} spatial axes",
                                                    filter.ToString(), spatial));
  }
  std::vector<int64_t> kernel(filter.dims().begin() + 2, filter.dims().end());
  for (int64_t k : kernel) {
    if (k < 0) return std::nullopt;
  }
  return kernel;
}

// Conv2D/Conv2DTranspose for 1-D (lifted) and 2-D windows, the 3D ops for 3-D ones.
std::string ConvOpType(const Window& lifted, bool transposed) {
  const bool volumetric = lifted.spatial() == 3;
  return transposed ? (volumetric ? "Conv3DTranspose" : "Conv2DTranspose") : (volumetric ? "Conv3D" : "Conv2D");
}

void SetWindowAttrs(Node* conv, const Window& lifted, int64_t groups) {
  conv->attrs().Set("strides", AscendWindowAttr(lifted.strides));
  conv->attrs().Set("pads", AscendPads(lifted));
  conv->attrs().Set("dilations", AscendWindowAttr(lifted.dilations));
  conv->attrs().Set("groups", groups);
  conv->attrs().Set("data_format", AscendDataFormat(lifted.spatial()));
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

// x and filter, each with a height axis of 1 for 1-D windows.
std::pair<Value*, Value*> ConvOperands(NodeTranslation& node, size_t spatial) {
  Value* x = node.RequiredInput(0);
  Value* filter = node.RequiredInput(1);
  if (spatial == 1) return {AddHeightAxis(node, x, "input"), AddHeightAxis(node, filter, "filter")};
  return {x, filter};
}

// Binds the convolution's output, removing the height axis a 1-D window added.
void BindConvOutput(NodeTranslation& node, Node* conv, size_t spatial) {
  node.BindOutput(0, spatial == 1 ? RemoveHeightAxis(node, conv->output(0)) : conv->output(0));
}

}  // namespace

void TranslateConv(NodeTranslation& node) {
  const size_t spatial = WindowSpatialRank(node, FilterSpatialRank(node));
  Window window = ReadWindow(node, spatial, FilterKernel(node, spatial));
  ResolveAutoPad(node, node.InputShape(0), window);
  const Window lifted = LiftTo2D(window);
  const auto [x, filter] = ConvOperands(node, spatial);
  Node* conv = node.AddMainNodeAs(ConvOpType(lifted, false), {x, filter, node.Input(2)});
  SetWindowAttrs(conv, lifted, node.attrs().Int("group", 1));
  BindConvOutput(node, conv, spatial);
}

// The transposed convolutions take the output shape as a constant input
// (input_size), so the ONNX rules that derive it (output_shape,
// output_padding, auto_pad) are applied here and the pads are made explicit.
void TranslateConvTranspose(NodeTranslation& node) {
  const size_t spatial = WindowSpatialRank(node, FilterSpatialRank(node));
  Window window = ReadWindow(node, spatial, FilterKernel(node, spatial));
  const int64_t groups = node.attrs().Int("group", 1);
  std::vector<int64_t> output_padding = node.attrs().Ints("output_padding", std::vector<int64_t>(spatial, 0));
  std::vector<int64_t> output_shape = node.attrs().Ints("output_shape");
  if (output_padding.size() != spatial) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'output_padding' has {} values; expected {}",
                                                    output_padding.size(), spatial));
  }
  // output_shape lists the spatial dims; some exporters write the full N, C, spatial... shape.
  if (output_shape.size() == spatial + 2) output_shape.erase(output_shape.begin(), output_shape.begin() + 2);
  if (!output_shape.empty() && output_shape.size() != spatial) {
    node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'output_shape' has {} values; expected {} spatial dims",
                                                    output_shape.size(), spatial));
  }
  const char* why = "compute the output shape (input_size)";
  const int64_t batch = RequireStaticDim(node, 0, 0, why);
  int64_t out_channels = 0;
  if (__builtin_mul_overflow(RequireStaticDim(node, 1, 1, why), groups, &out_channels)) {
    node.Fail(ErrorCode::kInvalidModel, "the output channels (weight dim 1 times group) overflow int64");
  }

  std::vector<int64_t> sizes(spatial);
  for (size_t axis = 0; axis < spatial; ++axis) {
    const int64_t input = RequireStaticDim(node, 0, axis + 2, why);
    const int64_t stride = window.strides[axis];
    const int64_t extent = (window.kernel[axis] - 1) * window.dilations[axis] + 1;
    int64_t full = 0;  // the output with zero pads
    if (input > kMaxInt32 || __builtin_mul_overflow(stride, input - 1, &full) ||
        __builtin_add_overflow(full, output_padding[axis] + extent, &full)) {
      node.Fail(ErrorCode::kInvalidModel, fmt::format("spatial dim {} of input 0 ({}) makes an output past int32",
                                                      axis, input));
    }
    if (!output_shape.empty() || window.auto_pad == AutoPad::kSameUpper || window.auto_pad == AutoPad::kSameLower) {
      sizes[axis] = output_shape.empty() ? input * stride : output_shape[axis];
      // An output_shape beyond what the convolution makes without padding
      // grows the end edge like output_padding (ONNX Runtime's rule): the
      // extra cells only get the bias.
      const int64_t total = std::max<int64_t>(full - sizes[axis], 0);
      output_padding[axis] += total - (full - sizes[axis]);
      // ONNX: SAME_UPPER puts an odd pixel of padding at the end; SAME_LOWER and output_shape at the beginning.
      const int64_t begin = window.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
      window.pads[axis] = begin;
      window.pads[axis + spatial] = total - begin;
    } else {
      if (window.auto_pad == AutoPad::kValid) window.pads.assign(2 * spatial, 0);
      sizes[axis] = ConvTransposeOutputDim(input, window.kernel[axis], stride, window.pads[axis],
                                           window.pads[axis + spatial], window.dilations[axis], output_padding[axis]);
      if (sizes[axis] <= 0) {
        node.Fail(ErrorCode::kInvalidModel,
                  fmt::format("the pads leave an output of size {} along spatial axis {}", sizes[axis], axis));
      }
    }
  }
  window.auto_pad = AutoPad::kNotSet;
  const Window lifted = LiftTo2D(window);
  if (spatial == 1) {
    sizes.insert(sizes.begin(), 1);
    output_padding.insert(output_padding.begin(), 0);
  }
  // The input_size constant is int32 (Conv2DBackpropInput's).
  std::vector<int64_t> wide = {batch, out_channels};
  wide.insert(wide.end(), sizes.begin(), sizes.end());
  std::vector<int32_t> size;
  for (int64_t s : wide) {
    if (s > kMaxInt32) {
      node.Fail(ErrorCode::kInvalidModel, fmt::format("the output shape [{}] has a dim past int32", fmt::join(wide, ",")));
    }
    size.push_back(static_cast<int32_t>(s));
  }
  Value* input_size = node.AddHelperConstant(
      "input_size", Tensor::FromVector(DataType::kInt32, Shape{static_cast<int64_t>(size.size())}, size));
  const auto [x, filter] = ConvOperands(node, spatial);
  Node* conv = node.AddMainNodeAs(ConvOpType(lifted, true), {input_size, x, filter, node.Input(2)});
  SetWindowAttrs(conv, lifted, groups);
  output_padding.insert(output_padding.begin(), {0, 0});  // N and C
  conv->attrs().Set("output_padding", output_padding);
  BindConvOutput(node, conv, spatial);
}

}  // namespace ge::onnx_import
