// The ops the CPU runs inside a float32 Conv2D as oneDNN post-ops, as the
// conv_post_op_fusion pass records them and the CPU convolution kernel reads
// them. The leading underscore marks them as ge-internal; only graphs compiled
// for the CPU carry them, and other devices refuse a node that does (they
// would drop the fused ops).
//
// Order of application: conv (+ bias), then the addend (input
// kConvFusedAddend, a tensor shaped like y) when _fused_add is true, then the
// activation: "Relu" = max(x, 0), "Clip" = min(max(x, _fused_clip_min), _fused_clip_max).
#pragma once

#include <cstddef>

namespace ge {

inline constexpr size_t kConvFusedAddend = 4;  // the Conv2D input after offset_w

inline constexpr const char* kFusedAttrPrefix = "_fused";                // every attribute below starts so
inline constexpr const char* kFusedAddAttr = "_fused_add";                // bool
inline constexpr const char* kFusedActivationAttr = "_fused_activation";  // string, one of the below
inline constexpr const char* kFusedClipMinAttr = "_fused_clip_min";       // float
inline constexpr const char* kFusedClipMaxAttr = "_fused_clip_max";       // float

inline constexpr const char* kFusedRelu = "Relu";
inline constexpr const char* kFusedClip = "Clip";

}  // namespace ge
