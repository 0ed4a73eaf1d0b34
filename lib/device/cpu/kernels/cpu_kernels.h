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
void RegisterPoolingKernels(KernelRegistry& registry);
void RegisterNormalizationKernels(KernelRegistry& registry);
void RegisterSoftmaxKernels(KernelRegistry& registry);
void RegisterReduceKernels(KernelRegistry& registry);
void RegisterTransposeKernels(KernelRegistry& registry);
void RegisterConcatSplitKernels(KernelRegistry& registry);
void RegisterSliceKernels(KernelRegistry& registry);
void RegisterGatherKernels(KernelRegistry& registry);
void RegisterShapeKernels(KernelRegistry& registry);

}  // namespace ge::device::cpu
