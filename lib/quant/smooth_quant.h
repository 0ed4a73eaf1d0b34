// SmoothQuant (the config's smooth_quant_alpha, ge's extension): a product
// x W whose activation has a few large channels quantizes badly per tensor.
// Per input channel k, s_k = max|x_k|^alpha / max|W_k|^(1 - alpha) moves
// part of that range into the weight: x W = (x / s)(s W). The float graph is
// rewritten so (a Mul by 1/s before the layer, its own copy of the weight
// scaled by s), before calibration, so that everything after (calibration,
// bias correction, the deploy graph, the fallback's evaluations) sees the
// smoothed layer; the scales go into the record, whose replay re-applies them.
// MatMulV2 and BatchMatMulV2 with a constant 2-D x2.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ge/graph.h"
#include "quant/calibration.h"
#include "quant/quant_record.h"

namespace ge::quant {

// Smooths every layer whose config asks (scales from the cache) or, with
// `recorded`, whose record has scales (a replay). The layers' activation
// values become the smoothed ones, which are added to `cache` when the
// originals are in it. Returns the scales by layer.
std::map<std::string, std::vector<float>> SmoothProducts(Graph& graph, std::vector<QuantLayer>& layers,
                                                         ActivationCache& cache, const QuantRecord* recorded);

}  // namespace ge::quant
