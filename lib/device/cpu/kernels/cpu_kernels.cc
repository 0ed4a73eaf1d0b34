#include "device/cpu/kernels/cpu_kernels.h"

namespace ge::device::cpu {

void RegisterCpuKernels(KernelRegistry& registry) {
  RegisterConvKernels(registry);
  RegisterMatMulKernels(registry);
  RegisterUnaryKernels(registry);
  RegisterBinaryKernels(registry);
  RegisterPoolingKernels(registry);
  RegisterNormalizationKernels(registry);
  RegisterSoftmaxKernels(registry);
  RegisterReduceKernels(registry);
  RegisterTransposeKernels(registry);
  RegisterConcatSplitKernels(registry);
  RegisterSliceKernels(registry);
  RegisterGatherKernels(registry);
  RegisterShapeKernels(registry);
}

}  // namespace ge::device::cpu
