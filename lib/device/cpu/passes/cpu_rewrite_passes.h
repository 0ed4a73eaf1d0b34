// The CPU device's own graph rewrites, run in PassStage::kDevice on the graphs
// compiled for the CPU (Device::RewritePasses). They record what only the CPU
// kernels read, so no other device sees them.
#pragma once

#include <memory>
#include <vector>

#include "passes/pass.h"

namespace ge::device::cpu {

// "conv_post_op_fusion": folds the residual Add, Relu or constant ClipByValue
// after a float32 Conv2D into it as oneDNN post-ops (graph/conv_post_ops.h).
std::unique_ptr<Pass> MakeConvPostOpFusionPass();

// "nhwc_layout": runs the float32 Conv2D, pooling and the layout-agnostic ops
// between them on NHWC, transposing at the region's edges.
std::unique_ptr<Pass> MakeNhwcLayoutPass();

// Both, in run order: the layout rewrite sees the fused convolutions.
std::vector<std::unique_ptr<Pass>> CpuRewritePasses();

}  // namespace ge::device::cpu
