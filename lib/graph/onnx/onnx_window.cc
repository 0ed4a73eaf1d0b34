#include "graph/onnx/onnx_window.h"

#include <fmt/core.h>

namespace ge::onnx_import {
namespace {

// The largest spatial dim same padding is computed for (Conv2D and pooling take int32 extents).
constexpr int64_t kMaxSpatialDim = 2147483647;

AutoPad ParseAutoPad(const NodeTranslation& node) {
  const std::string text = node.attrs().String("auto_pad", "NOTSET");
  if (text == "NOTSET") return AutoPad::kNotSet;
  if (text == "VALID") return AutoPad::kValid;
  if (text == "SAME_UPPER") return AutoPad::kSameUpper;
  if (text == "SAME_LOWER") return AutoPad::kSameLower;
  node.Fail(ErrorCode::kInvalidModel,
            fmt::format("attribute 'auto_pad' is '{}'; valid: NOTSET, VALID, SAME_UPPER, SAME_LOWER", text));
}

// An attribute of one positive value per spatial axis (kernel_shape, strides, dilations).
std::vector<int64_t> ReadSpatial(const NodeTranslation& node, const std::string& name, size_t spatial,
                                 std::vector<int64_t> fallback) {
  if (!node.attrs().Has(name)) return fallback;
  const std::vector<int64_t> values = node.attrs().Ints(name);
  if (values.size() != spatial) {
    node.Fail(ErrorCode::kInvalidModel,
              fmt::format("attribute '{}' has {} values; the input has {} spatial axes", name, values.size(), spatial));
  }
  for (int64_t v : values) {
    if (v <= 0) node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute '{}' has non-positive value {}", name, v));
  }
  return values;
}

}  // namespace

size_t WindowSpatialRank(const NodeTranslation& node, std::optional<size_t> fallback) {
  std::optional<size_t> spatial;
  if (const std::optional<size_t> rank = node.InputRank(0)) {
    spatial = *rank >= 2 ? *rank - 2 : 0;
  } else if (node.attrs().Has("kernel_shape")) {
    spatial = node.attrs().Ints("kernel_shape").size();
  } else {
    spatial = fallback;
  }
  if (!spatial) {
    node.Fail(ErrorCode::kUnsupported, "the number of spatial axes is unknown: the input's rank, kernel_shape and "
                                       "the filter's rank are all unknown");
  }
  if (*spatial < 1 || *spatial > 3) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("input has shape {}; windows over 1, 2 or 3 spatial axes (N, C, spatial...) are supported",
                          node.InputShape(0).ToString()));
  }
  return *spatial;
}

Window ReadWindow(const NodeTranslation& node, size_t spatial, std::optional<std::vector<int64_t>> kernel_fallback) {
  Window window;
  if (!node.attrs().Has("kernel_shape") && !kernel_fallback) {
    node.Fail(ErrorCode::kInvalidModel, "attribute 'kernel_shape' is missing and the filter's shape is unknown");
  }
  const std::vector<int64_t> ones(spatial, 1);
  window.kernel = ReadSpatial(node, "kernel_shape", spatial, kernel_fallback.value_or(ones));
  window.strides = ReadSpatial(node, "strides", spatial, ones);
  window.dilations = ReadSpatial(node, "dilations", spatial, ones);
  window.auto_pad = ParseAutoPad(node);
  window.pads.assign(2 * spatial, 0);
  if (node.attrs().Has("pads")) {
    const std::vector<int64_t> pads = node.attrs().Ints("pads");
    if (pads.size() != 2 * spatial) {
      node.Fail(ErrorCode::kInvalidModel,
                fmt::format("attribute 'pads' has {} values; {} spatial axes take {} (begins, then ends)", pads.size(),
                            spatial, 2 * spatial));
    }
    for (int64_t pad : pads) {
      if (pad < 0) node.Fail(ErrorCode::kInvalidModel, fmt::format("attribute 'pads' has negative value {}", pad));
    }
    window.pads = pads;
  }
  return window;
}

void ResolveAutoPad(const NodeTranslation& node, const Shape& input_shape, Window& window) {
  if (window.auto_pad == AutoPad::kNotSet) return;
  const size_t spatial = window.spatial();
  window.pads.assign(2 * spatial, 0);
  if (window.auto_pad == AutoPad::kValid) {
    window.auto_pad = AutoPad::kNotSet;
    return;
  }
  bool known = !input_shape.unknown_rank() && input_shape.rank() == spatial + 2;
  for (size_t axis = 0; known && axis < spatial; ++axis) known = input_shape.dim(axis + 2) >= 0;
  if (!known) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("auto_pad SAME_* needs the input's spatial dims to compute the pads, but its shape is {}; "
                          "give the model static input shapes or explicit pads",
                          input_shape.ToString()));
  }
  for (size_t axis = 0; axis < spatial; ++axis) {
    const int64_t input = input_shape.dim(axis + 2);
    const int64_t stride = window.strides[axis];
    // Window attributes are at most 2^31 - 1 (checked on import); the input
    // dim too, or the arithmetic below could pass int64.
    if (input > kMaxSpatialDim) {
      node.Fail(ErrorCode::kInvalidModel,
                fmt::format("spatial dim {} of the input is {}; at most {} with auto_pad", axis, input, kMaxSpatialDim));
    }
    const int64_t output = (input + stride - 1) / stride;
    const int64_t extent = (window.kernel[axis] - 1) * window.dilations[axis] + 1;
    const int64_t total = std::max<int64_t>(0, (output - 1) * stride + extent - input);
    // SAME_UPPER puts the odd pixel at the end, SAME_LOWER at the beginning.
    const int64_t begin = window.auto_pad == AutoPad::kSameUpper ? total / 2 : total - total / 2;
    window.pads[axis] = begin;
    window.pads[axis + spatial] = total - begin;
  }
  window.auto_pad = AutoPad::kNotSet;
}

void RequireNchwInput(const NodeTranslation& node, const Shape& input_shape) {
  if (!input_shape.unknown_rank() && input_shape.rank() != 4) {
    node.Fail(ErrorCode::kUnsupported,
              fmt::format("input has shape {}; only 2-D windows on 4-D NCHW inputs are supported",
                          input_shape.ToString()));
  }
}

Window ReadWindow2D(const NodeTranslation& node, std::optional<std::array<int64_t, 2>> kernel_fallback) {
  std::optional<std::vector<int64_t>> fallback;
  if (kernel_fallback) fallback = std::vector<int64_t>(kernel_fallback->begin(), kernel_fallback->end());
  return ReadWindow(node, 2, fallback);
}

Window LiftTo2D(Window window) {
  if (window.spatial() != 1) return window;
  window.kernel.insert(window.kernel.begin(), 1);
  window.strides.insert(window.strides.begin(), 1);
  window.dilations.insert(window.dilations.begin(), 1);
  window.pads = {0, window.pads[0], 0, window.pads[1]};
  return window;
}

std::vector<int64_t> AscendPads(const Window& window) {
  const size_t spatial = window.spatial();
  std::vector<int64_t> pads;
  for (size_t axis = 0; axis < spatial; ++axis) {
    pads.push_back(window.pads[axis]);
    pads.push_back(window.pads[axis + spatial]);
  }
  return pads;
}

std::vector<int64_t> AscendWindowAttr(const std::vector<int64_t>& spatial) {
  std::vector<int64_t> values = {1, 1};
  values.insert(values.end(), spatial.begin(), spatial.end());
  return values;
}

std::string AscendDataFormat(size_t spatial) { return spatial == 3 ? "NCDHW" : "NCHW"; }

Value* AddHeightAxis(NodeTranslation& node, Value* value, const std::string& suffix) {
  Node* unsqueeze = node.AddHelperNode("Unsqueeze", suffix + "_2d", {value});
  unsqueeze->attrs().Set("axes", std::vector<int64_t>{2});
  return unsqueeze->output(0);
}

Value* RemoveHeightAxis(NodeTranslation& node, Value* value, size_t output) {
  Node* squeeze = node.AddHelperNode("Squeeze", fmt::format("output{}_1d", output), {value});
  squeeze->attrs().Set("axis", std::vector<int64_t>{2});
  return squeeze->output(0);
}

}  // namespace ge::onnx_import
