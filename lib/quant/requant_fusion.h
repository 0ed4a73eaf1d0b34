// Requant fusion (CANN's V200RequantFusionPass): AscendDequant, optionally
// followed by a Relu or a ClipByValue the quant makes redundant, whose float
// output feeds only AscendQuant nodes with identical INT8 factors becomes one
// AscendRequant producing int8 directly: req_scale[c] = deq_scale[c] *
// quant.scale (= deq_scale / scale_d of the next layer), with the next
// layer's offset_d in the word's 9-bit offset field and a Relu as relu_flag.
//
// ClipByValue(lo, hi) with constant scalar bounds (Relu6 from ONNX) is
// absorbed when the quant's saturation already does its work (AMCT's
// Relu6 -> Relu rule, (127 - offset_d) * scale_d <= 6, generalized): the quant
// turns every x >= (127 - offset) / scale into 127 and every
// x <= (-128 - offset) / scale into -128 (scale, offset: AscendQuant's attrs,
// scale = 1/scale_d), so hi at/above the first value changes no code, and lo
// either at/below the second or 0, which becomes relu_flag. Any other clip
// stays and its dequant is not fused. INT16 quants and nodes tagged
// "_skip_fusion" stay.
#pragma once

#include <cstddef>

#include "ge/graph.h"

namespace ge::quant {

// Returns the number of AscendRequant nodes made.
size_t FuseRequant(Graph& graph);

}  // namespace ge::quant
