// Window attributes of the 2-D (NCHW) and 3-D (NCDHW) convolutions and
// poolings, read for any number of spatial axes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::device::cpu {

// Spatial axes of the node's x (input `x_input`): its rank - 2, which must be
// 2 (NCHW) or 3 (NCDHW) and match the data_format attribute.
size_t SpatialRankOf(const Node& node, size_t x_input);
// The spatial entries of an N, C, spatial... window attribute (strides,
// dilations, ksize); fails naming the node unless there are spatial + 2
// entries and the spatial ones are positive.
std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, size_t spatial);
// "pads" as (begin, end) pairs per spatial axis, 2 * spatial non-negative values.
std::vector<int64_t> PadsAttrN(const Node& node, size_t spatial);

}  // namespace ge::device::cpu
