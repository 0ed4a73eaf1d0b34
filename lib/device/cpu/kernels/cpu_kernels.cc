#include "device/cpu/kernels/cpu_kernels.h"

namespace ge::device::cpu {

void RegisterCpuKernels(KernelRegistry& registry) {
  RegisterConvKernels(registry);
  RegisterMatMulKernels(registry);
  RegisterUnaryKernels(registry);
  RegisterBinaryKernels(registry);
  RegisterActivationKernels(registry);
  RegisterSelectKernels(registry);
  RegisterPoolingKernels(registry);
  RegisterNormalizationKernels(registry);
  RegisterSoftmaxKernels(registry);
  RegisterReduceKernels(registry);
  RegisterResizeKernels(registry);
  RegisterEinsumKernels(registry);
  RegisterDeterminantKernels(registry);
  RegisterTransposeKernels(registry);
  RegisterConcatSplitKernels(registry);
  RegisterSliceKernels(registry);
  RegisterGatherKernels(registry);
  RegisterShapeKernels(registry);
  RegisterTileExpandKernels(registry);
  RegisterPadKernels(registry);
  RegisterSpaceDepthKernels(registry);
  RegisterTriangleKernels(registry);
  RegisterGeneratorKernels(registry);
  RegisterScatterKernels(registry);
  RegisterTopKKernels(registry);
  RegisterCumsumKernels(registry);
  RegisterNonZeroKernels(registry);
  RegisterReverseSequenceKernels(registry);
  RegisterUniqueKernels(registry);
  RegisterQuantizeKernels(registry);
  RegisterIntegerMatMulKernels(registry);
  RegisterIntegerConvKernels(registry);
  RegisterAscendQuantKernels(registry);
  RegisterQuantizedConvKernels(registry);
  RegisterQuantizedMatMulKernels(registry);
  RegisterWeightQuantMatMulKernels(registry);
  RegisterFfnKernels(registry);
  RegisterRecurrentKernels(registry);
  RegisterLossKernels(registry);
  RegisterNonMaxSuppressionKernels(registry);
  RegisterRoiAlignKernels(registry);
  RegisterGridSampleKernels(registry);
  RegisterWindowKernels(registry);
  RegisterDftKernels(registry);
  RegisterMelWeightMatrixKernels(registry);
}

}  // namespace ge::device::cpu
