// Window attributes of the 2-D (NCHW, or NHWC where the kernel allows it) and
// 3-D (NCDHW) convolutions and poolings, read for any number of spatial axes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "graph/window_layout.h"

namespace ge::device::cpu {

// The layout of the node's x (input `x_input`) that data_format names: 4-D
// NCHW or 5-D NCDHW, and with allow_channels_last also 4-D NHWC; fails naming
// the node otherwise.
WindowLayout WindowLayoutOf(const Node& node, size_t x_input, bool allow_channels_last);
// Spatial axes of the node's x (input `x_input`): its rank - 2, which must be
// 2 (NCHW) or 3 (NCDHW) and match the data_format attribute.
size_t SpatialRankOf(const Node& node, size_t x_input);
// The spatial entries of a window attribute in the layout's order (strides,
// dilations, ksize); fails naming the node unless there are rank entries and
// the spatial ones are positive.
std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, const WindowLayout& layout);
// SpatialAttrN for the channels-first layout of `spatial` axes.
std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, size_t spatial);
// "pads" as (begin, end) pairs per spatial axis, 2 * spatial non-negative values.
std::vector<int64_t> PadsAttrN(const Node& node, size_t spatial);

}  // namespace ge::device::cpu
