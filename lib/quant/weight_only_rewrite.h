// Weight-only quantization (weight_compress_only): int8 weights with per
// output column factors, float activations.
//   MatMulV2 / BatchMatMulV2 with a constant 2-D x2 -> WeightQuantBatchMatmulV2(x, int8 weight,
//     antiquant_scale [N] = scale_w, antiquant_offset [N] = -offset_w, bias) under the same node and
//     output names (CANN's antiquant computes (w + offset) * scale);
//   FFN -> the same FFN with int8 weights and antiquant_scale1/2, antiquant_offset1/2 per expert and
//     output column (factor layout: layer_weights.h).
#pragma once

#include "ge/graph.h"
#include "quant/layer_support.h"
#include "quant/quant_types.h"

namespace ge::quant {

// Rewrites `node` (the kWeightOnly `layer`) in `graph` with the record's weight factors.
void RewriteWeightOnlyLayer(Graph& graph, Node& node, const QuantLayer& layer, const LayerRecord& record);

}  // namespace ge::quant
