// How much a layer's quantization alone hurts, from what calibration already
// holds (the cached activations, the constant weight, the layer's factors),
// without running the model: the noise-to-signal ratio of its quantized
// activation(s) over the calibration batches plus that of its quantized
// weight. A proxy: it does not see how a layer's error grows or fades
// downstream, so the fallback search (auto_fallback.cc) measures the layers
// it rates most sensitive (the model run with each alone quantized) and uses
// it to order only the rest.
#pragma once

#include "ge/graph.h"
#include "quant/calibration.h"
#include "quant/quant_types.h"

namespace ge::quant {

double LayerSensitivity(const Graph& graph, const QuantLayer& layer, const LayerRecord& record,
                        const ActivationCache& cache);

}  // namespace ge::quant
