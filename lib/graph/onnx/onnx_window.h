// The sliding window shared by Conv, ConvTranspose, MaxPool, AveragePool and
// LpPool over 1, 2 or 3 spatial axes: reading the ONNX attributes and writing
// the Ascend ones. 1-D windows run as 2-D ones of height 1.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "graph/onnx/onnx_translation_context.h"

namespace ge::onnx_import {

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

struct Window {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // ONNX order: all begins, then all ends
  AutoPad auto_pad = AutoPad::kNotSet;

  size_t spatial() const { return kernel.size(); }
};

// The number of spatial axes: input 0's rank - 2 when known, else the length
// of kernel_shape, else `fallback` (e.g. from the filter's rank). Fails
// unless it is 1, 2 or 3.
size_t WindowSpatialRank(const NodeTranslation& node, std::optional<size_t> fallback);

// Reads kernel_shape (falling back to `kernel_fallback`, e.g. the filter's
// spatial dims), strides, dilations, pads and auto_pad, each of `spatial` axes.
Window ReadWindow(const NodeTranslation& node, size_t spatial, std::optional<std::vector<int64_t>> kernel_fallback);

// Replaces auto_pad VALID/SAME_UPPER/SAME_LOWER by the explicit pads it means
// for conv and pooling (output = ceil(input / stride) for SAME), using the
// spatial dims of `input_shape`; fails when they are unknown.
void ResolveAutoPad(const NodeTranslation& node, const Shape& input_shape, Window& window);

// A 1-D window as the 2-D one of height 1 it runs as; others unchanged.
Window LiftTo2D(Window window);

// Ascend attribute forms: pads as (begin, end) per axis; [1, 1, spatial...].
std::vector<int64_t> AscendPads(const Window& window);
std::vector<int64_t> AscendWindowAttr(const std::vector<int64_t>& spatial);
// "NCHW" for 2 spatial axes, "NCDHW" for 3.
std::string AscendDataFormat(size_t spatial);

// For 1-D windows: `value` with a height axis of 1 inserted at axis 2
// (Unsqueeze), and the op's output without it again (Squeeze).
Value* AddHeightAxis(NodeTranslation& node, Value* value, const std::string& suffix);
// `output` numbers the op's output for the helper's name.
Value* RemoveHeightAxis(NodeTranslation& node, Value* value, size_t output = 0);

// The 2-D-only forms, for ops without 1-D/3-D variants (ConvInteger, QLinearConv).
using Window2D = Window;
// Fails with kUnsupported unless the input is 4-D (or of unknown rank).
void RequireNchwInput(const NodeTranslation& node, const Shape& input_shape);
Window ReadWindow2D(const NodeTranslation& node, std::optional<std::array<int64_t, 2>> kernel_fallback);
inline std::vector<int64_t> AscendNchw(const std::vector<int64_t>& hw) { return AscendWindowAttr(hw); }

}  // namespace ge::onnx_import
