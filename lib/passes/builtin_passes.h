// Factories of the built-in passes. Each pass lives in its own file; the
// names below are the ones users switch off (PassManagerOptions::disabled).
#pragma once

#include <memory>

#include "passes/pass.h"

namespace ge::passes {

// "infer_shape": schema defaults, checks and shape/dtype inference in
// topological order, folding shape computations (Shape of a static tensor,
// small all-constant nodes) on the way so that downstream shapes resolve.
std::unique_ptr<Pass> MakeInferShapePass();

// "identity_removal": bypasses Identity nodes, keeping graph-output names.
std::unique_ptr<Pass> MakeIdentityRemovalPass();

// "constant_folding": evaluates every node whose inputs are all constants.
std::unique_ptr<Pass> MakeConstantFoldingPass();

// "conv_bn_fold": folds an inference BatchNorm into the Conv2D feeding it.
std::unique_ptr<Pass> MakeConvBnFoldPass();

// "precision_mode": casts so that nodes compute in the dtypes
// precision_mode / precision_mode_v2 choose (passes/precision_mode.h).
std::unique_ptr<Pass> MakePrecisionModePass();

// "impl_mode": records on each node the implementation mode it asked for,
// the one its kernel applies and why (passes/impl_mode_selection.h).
std::unique_ptr<Pass> MakeImplModePass();

// "layer_norm_fusion": collapses the decomposed LayerNorm of ONNX exports
// (ReduceMeanD, Sub, Pow, ReduceMeanD, Add, Sqrt, Div, Mul, Add) into one LayerNorm.
std::unique_ptr<Pass> MakeLayerNormFusionPass();

// "gelu_fusion": collapses x * 0.5 * (1 + erf(x / sqrt(2))) into one Gelu.
std::unique_ptr<Pass> MakeGeluFusionPass();

// "conv_bias_fold": turns Add(Conv2D(x, W[, b]), constant per-channel c) into
// the convolution's bias b + c.
std::unique_ptr<Pass> MakeConvBiasFoldPass();

// "matmul_bias_fusion": turns Add(MatMulV2|BatchMatMulV2(x1, x2), constant bias [N])
// into the product's own bias input.
std::unique_ptr<Pass> MakeMatMulBiasFusionPass();

// "transpose_matmul_fusion": a TransposeD swapping the last two axes of a
// MatMulV2/BatchMatMulV2 operand becomes the product's transpose flag.
std::unique_ptr<Pass> MakeTransposeMatMulFusionPass();

// "dead_code_elimination": removes nodes that no graph output depends on.
std::unique_ptr<Pass> MakeDeadCodeEliminationPass();

}  // namespace ge::passes
