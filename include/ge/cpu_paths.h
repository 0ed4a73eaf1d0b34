// Which instruction-set paths the CPU device's kernels take on this machine,
// as capped by GE_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA (docs/cpu-kernels.md).
// `ge info` prints them.
#pragma once

#include <string>

namespace ge {

struct CpuPaths {
  std::string loops;   // ge's own loop kernels: "avx512", "avx2" or "baseline"
  std::string onednn;  // oneDNN's ISA, in ONEDNN_MAX_CPU_ISA's names: "avx512_core_bf16", "avx2", ...
  // int8 convolutions and matmuls: "vnni" (s8 activations as they are), or
  // "u8 pairs" (no VNNI: u8 activations, filters wider than [-64, 64] split
  // in two; exact either way, the split doubling the multiplies).
  std::string int8;
  // bfloat16 products (high_performance cube ops, enable_hi_float_32_execution):
  // "native" (AVX512-BF16) or "emulated" (bfloat16 values multiplied in float32).
  std::string bf16;
};

// Throws Error(kInvalidArgument) when GE_MAX_CPU_ISA names no ISA.
CpuPaths DescribeCpuPaths();

}  // namespace ge
