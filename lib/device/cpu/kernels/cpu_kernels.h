// The CPU kernel families. Each family registers its kernels through one
// function; RegisterCpuKernels calls them all.
#pragma once

#include "device/kernel.h"

namespace ge::device::cpu {

void RegisterCpuKernels(KernelRegistry& registry);

void RegisterConvKernels(KernelRegistry& registry);
void RegisterMatMulKernels(KernelRegistry& registry);
void RegisterUnaryKernels(KernelRegistry& registry);
void RegisterBinaryKernels(KernelRegistry& registry);
void RegisterActivationKernels(KernelRegistry& registry);
void RegisterSelectKernels(KernelRegistry& registry);
void RegisterPoolingKernels(KernelRegistry& registry);
void RegisterNormalizationKernels(KernelRegistry& registry);
void RegisterSoftmaxKernels(KernelRegistry& registry);
void RegisterReduceKernels(KernelRegistry& registry);
void RegisterResizeKernels(KernelRegistry& registry);
void RegisterEinsumKernels(KernelRegistry& registry);
void RegisterDeterminantKernels(KernelRegistry& registry);
void RegisterTransposeKernels(KernelRegistry& registry);
void RegisterConcatSplitKernels(KernelRegistry& registry);
void RegisterSliceKernels(KernelRegistry& registry);
void RegisterGatherKernels(KernelRegistry& registry);
void RegisterShapeKernels(KernelRegistry& registry);
void RegisterTileExpandKernels(KernelRegistry& registry);
void RegisterPadKernels(KernelRegistry& registry);
void RegisterSpaceDepthKernels(KernelRegistry& registry);
void RegisterTriangleKernels(KernelRegistry& registry);
void RegisterGeneratorKernels(KernelRegistry& registry);
void RegisterScatterKernels(KernelRegistry& registry);
void RegisterTopKKernels(KernelRegistry& registry);
void RegisterCumsumKernels(KernelRegistry& registry);
void RegisterNonZeroKernels(KernelRegistry& registry);
void RegisterReverseSequenceKernels(KernelRegistry& registry);
void RegisterUniqueKernels(KernelRegistry& registry);
void RegisterQuantizeKernels(KernelRegistry& registry);
void RegisterIntegerMatMulKernels(KernelRegistry& registry);
void RegisterIntegerConvKernels(KernelRegistry& registry);
void RegisterAscendQuantKernels(KernelRegistry& registry);
void RegisterQuantizedConvKernels(KernelRegistry& registry);
void RegisterQuantizedMatMulKernels(KernelRegistry& registry);
void RegisterWeightQuantMatMulKernels(KernelRegistry& registry);
void RegisterFfnKernels(KernelRegistry& registry);
void RegisterRecurrentKernels(KernelRegistry& registry);
void RegisterLossKernels(KernelRegistry& registry);
void RegisterNonMaxSuppressionKernels(KernelRegistry& registry);
void RegisterRoiAlignKernels(KernelRegistry& registry);
void RegisterGridSampleKernels(KernelRegistry& registry);
void RegisterWindowKernels(KernelRegistry& registry);
void RegisterDftKernels(KernelRegistry& registry);
void RegisterMelWeightMatrixKernels(KernelRegistry& registry);

}  // namespace ge::device::cpu
