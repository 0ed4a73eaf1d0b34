// The convolutions the CPU's rewrites (conv_post_op_fusion, nhwc_layout) may
// touch: those the CPU kernel runs through its float32 oneDNN primitive, the
// one path that applies post-ops and reads NHWC.
#pragma once

#include "ge/graph.h"

namespace ge::device::cpu {

// Conv2D's inputs; graph/conv_post_ops.h adds the CPU-internal kConvFusedAddend.
enum ConvInput { kConvX = 0, kConvFilter, kConvBias, kConvOffsetW };

// A Conv2D with one output, float32 x and y, not the quantized form (no
// offset_w, offset_x 0), and not in a mode that multiplies bfloat16-rounded
// operands (the kernel's own test, WantsReducedPrecisionProducts).
bool IsCpuFloat32Conv(const Node& node);

}  // namespace ge::device::cpu
