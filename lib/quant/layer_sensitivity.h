// How much a layer's quantization alone hurts, from what calibration already
// holds (the cached activations, the constant weight, the layer's factors),
// without running the model: the noise-to-signal ratio of its quantized
// activation(s) over the calibration batches plus that of its quantized
// weight. The fallback search (auto_fallback.cc) ranks the layers by it once
// and keeps the least sensitive in INT8. A proxy: it does not see how a
// layer's error grows or fades downstream, which the search's evaluations of
// the whole model do.
#pragma once

#include "ge/graph.h"
#include "quant/calibration.h"
#include "quant/quant_types.h"

namespace ge::quant {

double LayerSensitivity(const Graph& graph, const QuantLayer& layer, const LayerRecord& record,
                        const ActivationCache& cache);

}  // namespace ge::quant
