// One registration function per op family; RegisterBuiltinOps calls them all.
#pragma once

#include "graph/op_schema.h"

namespace ge {

void RegisterIoOps(OpRegistry& registry);           // Data, Const
void RegisterElementwiseOps(OpRegistry& registry);  // unary, binary, ClipByValue, Cast
void RegisterConvOps(OpRegistry& registry);         // Conv2D, Conv2DTranspose
void RegisterPoolOps(OpRegistry& registry);         // MaxPoolV3, AvgPoolV2
void RegisterNormOps(OpRegistry& registry);         // BatchNorm, LayerNorm, SoftmaxV2
void RegisterMatMulOps(OpRegistry& registry);       // MatMulV2, BatchMatMulV2
void RegisterReduceOps(OpRegistry& registry);       // Reduce*D
void RegisterShapeOps(OpRegistry& registry);        // Identity, Reshape, Flatten, Squeeze, Unsqueeze, TransposeD, Shape
void RegisterSliceOps(OpRegistry& registry);        // ConcatD, SplitVD, StridedSliceV2, GatherV2D

}  // namespace ge
