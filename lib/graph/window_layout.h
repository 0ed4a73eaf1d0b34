// Where the channel and spatial axes of a convolution's or pooling's x and y
// sit: channels first (NCHW, NCDHW) or, for the 2-D ops that take
// data_format "NHWC", channels last. Window attributes (strides, dilations,
// ksize) follow the same order, as the Ascend IR states them in data_format
// order; shared by the inference functions and the CPU kernels.
#pragma once

#include <cstddef>

namespace ge {

struct WindowLayout {
  size_t spatial = 2;
  bool channels_last = false;

  size_t rank() const { return spatial + 2; }
  size_t channel_axis() const { return channels_last ? spatial + 1 : 1; }
  size_t spatial_axis(size_t a) const { return channels_last ? 1 + a : 2 + a; }
};

}  // namespace ge
