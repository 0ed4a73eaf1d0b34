// Cross-layer equalization (the config's cross_layer_equalization, ge's
// extension; Nagel et al., "Data-Free Quantization", 2019). In a chain
// conv1 -> activation -> conv2, output channel i of conv1 can be divided by
// s_i if conv2's input channel i is multiplied by s_i: for a ReLU, or no
// activation, the float model is unchanged. With s_i = sqrt(r1_i / r2_i),
// r the channel's largest |weight| on each side, both sides end with the
// range sqrt(r1_i r2_i). Depthwise chains need it most: one weight scale per
// tensor (MatMul's, or channel_wise: false) then serves channels of similar
// range, and the activation between them loses its outlier channels.
//
// A clip at [0, hi] (ReLU6) is not scale-equivariant: scaled, it clips the
// channel at hi * s_i. A channel whose calibrated activations reach hi keeps
// s_i = 1; one that stays below keeps s_i >= max / hi, so that on the
// calibration data the clip never acts and the model is unchanged there.
//
// Pairs of Conv2D layers (any groups) whose configs both ask, joined by
// nothing, Relu, Relu6 or ClipByValue(0, hi), each value used once. Chains
// (A -> B -> C) are swept until the scales settle. The float graph is
// rewritten before calibration, like SmoothQuant's; each pair's scales go
// into the first layer's record, whose replay re-applies them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "quant/calibration.h"
#include "quant/quant_record.h"

namespace ge::quant {

struct EqualizedPair {
  std::string second;         // the conv2 layer, whose input channels took the scales
  std::vector<float> scales;  // s_i per channel between the two
  int64_t held_by_clip = 0;   // channels whose scale the clip bounded (kept at 1 or raised)
};

// Equalizes every pair whose configs ask (scales from the weights and the
// cache's activations) or, with `recorded`, whose first layer's record has
// scales (a replay). The cached activations between each pair become the
// rescaled ones. Returns the pairs by their first layer.
std::map<std::string, EqualizedPair> EqualizeConvPairs(Graph& graph, const std::vector<QuantLayer>& layers,
                                                       ActivationCache& cache, const QuantRecord* recorded);

}  // namespace ge::quant
