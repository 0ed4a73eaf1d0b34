#include "graph/onnx/onnx_window.h"

#include <fmt/format.h>

namespace ge::onnx_import {
namespace {

AutoPad ParseAutoPad(const NodeTranslation& node) {
  const std::string text = node.attrs().String("auto_pad", "NOTSET");
  if (text == "NOTSET") return AutoPad::kNotSet;
  if (text == "VALID") return AutoPad::kValid;
  if (text == "SAME_UPPER") return AutoPad::kSameUpper;
  if (text == "SAME_LOWER") return AutoPad::kSameLower;
  node.Fail(ErrorCode::kInvalidModel,
            fmt::format("attribute 'auto_pad' is '{}'; valid: NOTSET, VALID, SAME_UPPER, SAME_LOWER", text));
}

// An attribute of two spatial values (kernel_shape, strides, dilations).
std::array<int64_t, 2> ReadPair(const NodeTranslation& node, const std::string& name, std::array<int64_t, 2> fallback) {
  if (!node.attrs().Has(name)) return fallback;
  const std::vector<int64_t> values = node.attrs().Ints(name);
  if (values.size() != 2) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("attribute '{}' has {} values; only 2-D windows (NCHW input) are supported", name,
                          values.size()));
  }
  for (int64_t v : values) {
    if (v <= 0) node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute '{}' has non-positive value {}", name, v));
  }
  return {values[0], values[1]};
}

}  // namespace

void RequireNchwInput(const NodeTranslation& node, const Shape& input_shape) {
  if (!input_shape.unknown_rank() && input_shape.rank() != 4) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("input has shape {}; only 2-D windows on 4-D NCHW inputs are "
                                                   "supported",
                                                   input_shape.ToString()));
  }
}

Window2D ReadWindow2D(const NodeTranslation& node, std::optional<std::array<int64_t, 2>> kernel_fallback) {
  Window2D window;
  if (!node.attrs().Has("kernel_shape") && !kernel_fallback) {
    node.Fail(ErrorCode::kInvalidModel, "attribute 'kernel_shape' is missing and the filter's shape is unknown");
  }
  window.kernel = ReadPair(node, "kernel_shape", kernel_fallback.value_or(std::array<int64_t, 2>{1, 1}));
  window.strides = ReadPair(node, "strides", {1, 1});
  window.dilations = ReadPair(node, "dilations", {1, 1});
  window.auto_pad = ParseAutoPad(node);
  if (node.attrs().Has("pads")) {
    const std::vector<int64_t> pads = node.attrs().Ints("pads");
    if (pads.size() != 4) {
      node.Fail(ErrorCode::kUnsupported,
                fmt::format("attribute 'pads' has {} values; only 2-D windows take [top, left, bottom, right]",
                            pads.size()));
    }
    for (size_t i = 0; i < 4; ++i) {
      if (pads[i] < 0) node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'pads' has negative value {}", pads[i]));
      window.pads[i] = pads[i];
    }
  }
  return window;
}

void ResolveAutoPad(const NodeTranslation& node, const Shape& input_shape, Window2D& window) {
  if (window.auto_pad == AutoPad::kNotSet) return;
  window.pads = {0, 0, 0, 0};
  if (window.auto_pad == AutoPad::kValid) {
    window.auto_pad = AutoPad::kNotSet;
    return;
  }
  if (input_shape.unknown_rank() || input_shape.rank() != 4 || input_shape.dim(2) < 0 || input_shape.dim(3) < 0) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("auto_pad SAME_* needs the input's spatial dims to compute the pads, but its shape is {}; "
                          "give the model static input shapes or explicit pads",
                          input_shape.ToString()));
  }
  for (size_t axis = 0; axis < 2; ++axis) {
    const int64_t input = input_shape.dim(axis + 2);
    const int64_t stride = window.strides[axis];
    const int64_t output = (input + stride - 1) / stride;
    const int64_t extent = (window.kernel[axis] - 1) * window.dilations[axis] + 1;
    const int64_t total = std::max<int64_t>(0, (output - 1) * stride + extent - input);
    // SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the beginning.
    const int64_t begin = window.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
    window.pads[axis] = begin;
    window.pads[axis + 2] = total - begin;
  }
  window.auto_pad = AutoPad::kNotSet;
}

std::vector<int64_t> AscendPads(const Window2D& window) {
  return {window.pads[0], window.pads[2], window.pads[1], window.pads[3]};
}

std::vector<int64_t> AscendNchw(const std::array<int64_t, 2>& hw) { return {1, 1, hw[0], hw[1]}; }

}  // namespace ge::onnx_import
