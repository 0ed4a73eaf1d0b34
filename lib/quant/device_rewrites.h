// Quantization and layer comparison work on the device-independent optimized
// graph: the CPU's own rewrites (activations fused into convolutions, NHWC
// layouts with their transposes) rename and reshape the values they look up
// by name. Those rewrites come back when the deploy graph is compiled.
#pragma once

#include "ge/compiled_model.h"

namespace ge::quant {

// `options` with the device-specific passes added to ge.disablePasses.
Options WithoutDeviceRewrites(Options options);

}  // namespace ge::quant
