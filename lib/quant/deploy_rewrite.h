// The deploy graph of full quantization (AMCT/CANN style): every layer the
// planner quantizes is rewritten with the factors of the record.
//
//   weighted layer L (Conv2D, Conv3D, Conv2DTranspose, MatMulV2, BatchMatMulV2 with a constant x2):
//     x -> AscendQuant "<L>_quant" (scale 1/scale_d, offset offset_d) -> L (int8 filter, int32 bias,
//     offset_x = offset_d; output "<L>_int32") -> AscendDequant "<L>_dequant" (deq_scale = scale_d * scale_w[c])
//     whose output keeps L's original output name;
//   two-tensor BatchMatMulV2: both inputs through AscendQuant (INT8 symmetric), deq_scale = scale_d1 * scale_d2;
//   MaxPool / MaxPoolV3 / AvgPoolV2: AscendQuant -> the op on int8 -> AscendAntiQuant "<L>_antiquant";
//   Add: its one quantized input goes through AscendQuant -> AscendAntiQuant;
//   weight-only layers: see weight_only_rewrite.h.
// Deploy nodes carry the string attribute "_quant_layer" = L. Then, with
// options.requant_fusion, AscendAntiQuant -> AscendQuant pairs with reciprocal
// factors are bypassed and Dequant [-> Relu] -> Quant become AscendRequant.
#pragma once

#include <memory>
#include <vector>

#include "ge/graph.h"
#include "quant/layer_support.h"
#include "quant/quant_record.h"

namespace ge::quant {

struct DeployOptions {
  // Requant fusion and the AntiQuant -> Quant bypass; off for layer-wise
  // comparison, so that every layer's float output stays visible by name.
  bool requant_fusion = true;
  // With requant_fusion: int8 Conv2D + AscendDequant/AscendRequant into
  // QuantConv2D (quant_conv_fusion.h). Tests of the unfused structure turn it off.
  bool fuse_quant_conv = true;
};

// Clones `graph` and rewrites every layer with quantize == true. A quantized
// layer missing from the record, an int32 bias overflow or factors that the
// deploy ops cannot take are ge::Error naming the layer.
std::unique_ptr<Graph> BuildDeployGraph(const Graph& graph, const std::vector<QuantLayer>& layers,
                                        const QuantRecord& record, const DeployOptions& options = {});

// Bypasses AscendAntiQuant(scale s, offset o) -> AscendQuant(scale 1/s, offset -o, same integer type):
// the integer tensor flows through unchanged. Returns the number of AscendQuant nodes removed.
size_t BypassAntiQuantQuant(Graph& graph);

}  // namespace ge::quant
