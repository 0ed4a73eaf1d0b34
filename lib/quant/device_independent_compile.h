// Quantization and layer comparison work on the device-independent optimized
// graph: the device's own rewrites (on the CPU: activations fused into
// convolutions, NHWC layouts with their transposes) rename and reshape the
// values they look up by name. Those rewrites come back when the deploy graph
// is compiled.
#pragma once

#include <memory>

#include "ge/compiled_model.h"

namespace ge::quant {

// CompiledModel::Compile without the device stage (PassStage::kDevice).
std::shared_ptr<const CompiledModel> CompileDeviceIndependent(std::unique_ptr<Graph> graph, const Options& options);

}  // namespace ge::quant
