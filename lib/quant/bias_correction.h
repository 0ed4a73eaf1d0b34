// Bias correction (the config's bias_correction, ge's extension): the mean
// shift that quantization gives a weighted layer's output,
// E[W x] - E[Wq xq] per output channel, estimated from the per-input-channel
// means of the cached calibration activations before and after their fake
// quantization and the weight before and after ARQ. The deploy rewrite adds
// it to the float bias before the bias becomes int32, so that the integer
// layer's outputs keep the float layer's mean. Conv2D (NCHW or NHWC, grouped),
// MatMulV2 and BatchMatMulV2 with a 2-D constant x2; padding is ignored (a
// convolution's border outputs see fewer inputs than the estimate assumes).
#pragma once

#include <vector>

#include "ge/graph.h"
#include "quant/layer_support.h"
#include "quant/quant_types.h"

namespace ge::quant {

// One shift per output channel; empty when the layer has no form for it.
std::vector<float> BiasCorrection(const Node& node, const QuantLayer& layer, const LayerRecord& record,
                                  const std::vector<Tensor>& activations);

}  // namespace ge::quant
