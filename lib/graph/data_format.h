// A node's data_format attribute as the passes and quantization ask it: are
// its channels the last axis ("NHWC", a TensorFlow model's Conv2D) rather than
// axis 1 (the default, NCHW)?
#pragma once

#include "ge/graph.h"

namespace ge {

bool ChannelsLast(const Node& node);

}  // namespace ge
