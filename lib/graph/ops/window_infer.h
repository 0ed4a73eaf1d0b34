// Window attributes of the convolutions and poolings for any number of
// spatial axes (2 for NCHW ops, 3 for NCDHW ones), for their inference
// functions. The 2-D ops that allow it also take NHWC x and y: their window
// attributes (strides, dilations, ksize) are then in N, H, W, C order, as the
// Ascend IR states them in data_format order; pads stay (begin, end) per axis.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/op_schema.h"
#include "graph/window_layout.h"

namespace ge::infer {

// The largest kernel size, stride, dilation or pad: within int32, so that the
// window arithmetic (dilation * (kernel - 1), input + pads) stays far from
// int64 overflow. A tampered model file can hold any int64 here.
constexpr int64_t kMaxWindowValue = 2147483647;

// The layout the op's spatial rank implies: "NCHW" (2) or "NCDHW" (3).
const char* DataFormatFor(size_t spatial);
// "depth", "height" or "width": the name of spatial axis `axis` of `spatial`.
const char* SpatialName(size_t axis, size_t spatial);
// Fails unless the data_format attribute is DataFormatFor(spatial).
void RequireDataFormat(InferContext& ctx, size_t spatial);
// The layout data_format names: DataFormatFor(spatial), or with
// allow_channels_last and 2 spatial axes also "NHWC"; fails otherwise.
WindowLayout ReadWindowLayout(InferContext& ctx, size_t spatial, bool allow_channels_last);
// The spatial entries of a window attribute in data_format order
// (strides, dilations, ksize): spatial + 2 values in [1, kMaxWindowValue]
// with N = C = 1.
std::vector<int64_t> SpatialValues(InferContext& ctx, const std::string& name, const WindowLayout& layout);
// SpatialValues for the channels-first layout of `spatial` axes.
std::vector<int64_t> SpatialValues(InferContext& ctx, const std::string& name, size_t spatial);
// "pads" as (begin, end) pairs per spatial axis: 2 * spatial values in
// [0, kMaxWindowValue].
std::vector<int64_t> SpatialPads(InferContext& ctx, size_t spatial);

}  // namespace ge::infer
