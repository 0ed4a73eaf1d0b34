// Folds each int8 Conv2D and the AscendDequant or AscendRequant that alone
// reads its int32 sums into one QuantConv2D, so the sums stay inside the
// convolution (oneDNN output scales, relu and dst zero point) instead of
// making a round trip through memory. Part of requant fusion: the
// layer-wise comparison, which needs the float outputs, runs without it.
#pragma once

#include <cstddef>

#include "ge/graph.h"

namespace ge::quant {

// Returns the number of convolutions fused.
size_t FuseQuantConv(Graph& graph);

}  // namespace ge::quant
