// One registration function per op family; RegisterBuiltinOps calls them all.
#pragma once

#include "graph/op_schema.h"

namespace ge {

void RegisterIoOps(OpRegistry& registry);           // Data, Const
void RegisterElementwiseOps(OpRegistry& registry);  // unary, binary, ClipByValue, Cast
void RegisterLogicOps(OpRegistry& registry);        // comparisons, Logical*, Bitwise*, shifts, IsNan/IsInf, Select
void RegisterActivationOps(OpRegistry& registry);   // LeakyRelu, Elu, ..., PRelu, LogSoftmaxV2, Hardmax
void RegisterConvOps(OpRegistry& registry);         // Conv2D, Conv2DTranspose
void RegisterPoolOps(OpRegistry& registry);         // MaxPoolV3, AvgPoolV2
void RegisterNormOps(OpRegistry& registry);         // BatchNorm, LayerNorm, SoftmaxV2
void RegisterMatMulOps(OpRegistry& registry);       // MatMulV2, BatchMatMulV2
void RegisterResizeOps(OpRegistry& registry);       // Resize
void RegisterReduceOps(OpRegistry& registry);       // Reduce*D
void RegisterShapeOps(OpRegistry& registry);        // Identity, Reshape, Flatten, Squeeze, Unsqueeze, TransposeD, Shape
void RegisterSliceOps(OpRegistry& registry);        // ConcatD, SplitVD, StridedSliceV2, GatherV2D
void RegisterQuantOps(OpRegistry& registry);        // QuantizeLinear, DequantizeLinear, QLinear*, *Integer
void RegisterAscendQuantOps(OpRegistry& registry);  // AscendQuant, ...Dequant, ...Requant, ...AntiQuant, WQBMM
void RegisterFfnOps(OpRegistry& registry);          // FFN (mixture-of-experts feed-forward)
void RegisterRecurrentOps(OpRegistry& registry);    // CommonRNN, CommonGRU, CommonLSTM

void RegisterLayoutOps(OpRegistry& registry);       // Tile, Expand, PadV3, DepthToSpace, SpaceToDepth, Tril, Triu
void RegisterGeneratorOps(OpRegistry& registry);    // Fill, Range, OneHot, EyeLike, Size
void RegisterIndexOps(OpRegistry& registry);        // Gather/Scatter variants, TopKV2, ArgMax/MinV2, Cumsum, NonZero, ...
void RegisterLossOps(OpRegistry& registry);         // NLLLoss
void RegisterDetectionOps(OpRegistry& registry);    // NonMaxSuppressionV6, ROIAlign, GridSampler2D
void RegisterSignalOps(OpRegistry& registry);       // HannWindow, HammingWindow, BlackmanWindow, DFT, STFT, MelWeightMatrix
void RegisterControlFlowOps(OpRegistry& registry);  // If, Loop, Scan (subgraphs)
void RegisterSequenceOps(OpRegistry& registry);     // sequences and optionals

}  // namespace ge
