// The constant weights of a quantizable layer as the rewrites and calibration
// see them: read as float32 whatever their stored type, calibrated with ARQ
// along the layer's output-channel axis, and quantized to int8.
//
// FFN has two weights, [E, K1, N1] and [E, N1, N2] (or without E), quantized
// per expert and output column. Its WeightQuantParams hold weight1's entries
// then weight2's: E*N1 + E*N2 of them when channel-wise, else 2 (one per weight).
#pragma once

#include <cstdint>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"
#include "graph/ops/ffn_inputs.h"
#include "quant/layer_support.h"
#include "quant/quant_types.h"

namespace ge::quant {


// A float32 or float16 tensor's elements as float32; other dtypes throw kInternal naming `what`.
std::vector<float> TensorAsFloats(const Tensor& tensor, const std::string& what);

// ARQ factors of the layer's constant weight(s) (`node` is the layer in `graph`),
// with the layer's config.arq. Errors name the layer.
WeightQuantParams CalibrateLayerWeights(const Node& node, const QuantLayer& layer);

// The two FFN weights quantized with `params` laid out as above.
struct FfnQuantizedWeights {
  Tensor weight1, weight2;                      // int8, the float weights' shapes
  Tensor antiquant_scale1, antiquant_scale2;    // float32 [E, N] or [N]
  Tensor antiquant_offset1, antiquant_offset2;  // float32, = -offset_w
};
FfnQuantizedWeights QuantizeFfnWeights(const Node& ffn, const WeightQuantParams& params);

}  // namespace ge::quant
