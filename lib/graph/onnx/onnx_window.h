// The 2-D sliding window shared by Conv, ConvTranspose, MaxPool and
// AveragePool: reading the ONNX attributes and writing the Ascend ones.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "graph/onnx/onnx_translation_context.h"

namespace ge::onnx_import {

enum class AutoPad { kNotSet, kValid, kSameUpper, kSameLower };

struct Window2D {
  std::array<int64_t, 2> kernel{};
  std::array<int64_t, 2> strides{1, 1};
  std::array<int64_t, 2> dilations{1, 1};
  std::array<int64_t, 4> pads{};  // ONNX order: [top, left, bottom, right]
  AutoPad auto_pad = AutoPad::kNotSet;
};

// Reads kernel_shape (falling back to `kernel_fallback`, e.g. the filter's
// spatial dims), strides, dilations, pads and auto_pad. Only 2-D windows are
// supported; other ranks fail with kUnsupported naming the node.
Window2D ReadWindow2D(const NodeTranslation& node, std::optional<std::array<int64_t, 2>> kernel_fallback);

// Replaces auto_pad VALID/SAME_UPPER/SAME_LOWER by the explicit pads it means
// for conv and pooling (output = ceil(input / stride) for SAME), using the
// spatial dims of the NCHW `input_shape`; fails when they are unknown.
void ResolveAutoPad(const NodeTranslation& node, const Shape& input_shape, Window2D& window);

// Ascend attribute forms: pads [top, bottom, left, right]; [1, 1, h, w].
std::vector<int64_t> AscendPads(const Window2D& window);
std::vector<int64_t> AscendNchw(const std::array<int64_t, 2>& hw);

// Fails with kUnsupported unless the input is 4-D (or of unknown rank).
void RequireNchwInput(const NodeTranslation& node, const Shape& input_shape);

}  // namespace ge::onnx_import
