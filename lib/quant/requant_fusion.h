// Requant fusion (CANN's V200RequantFusionPass): AscendDequant, optionally
// followed by a Relu, whose float output feeds only AscendQuant nodes with
// identical INT8 factors becomes one AscendRequant producing int8 directly:
// req_scale[c] = deq_scale[c] * quant.scale (= deq_scale / scale_d of the next
// layer), with the next layer's offset_d in the word's 9-bit offset field and
// the Relu as relu_flag. INT16 quants and nodes tagged "_skip_fusion" stay.
#pragma once

#include <cstddef>

#include "ge/graph.h"

namespace ge::quant {

// Returns the number of AscendRequant nodes made.
size_t FuseRequant(Graph& graph);

}  // namespace ge::quant
