// Which instruction-set paths the CPU device's kernels take on this machine,
// as capped by GE_MAX_CPU_ISA / ONEDNN_MAX_CPU_ISA (docs/cpu-kernels.md).
// `ge info` prints them.
#pragma once

#include <string>

#include "ge/export.h"

namespace ge {

struct GE_API CpuPaths {
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
GE_API CpuPaths DescribeCpuPaths();

// True when int8 products on a CPU with the instruction set `isa` use VNNI:
// `isa` takes GE_MAX_CPU_ISA's names (AVX2, AVX512_CORE_VNNI, ..., any
// case), empty meaning this machine as capped. Without VNNI, filters inside
// [-64, 64] multiply once, wider ones twice. Throws Error(kInvalidArgument)
// naming `option` and the valid names for an unknown one.
GE_API bool Int8UsesVnni(const std::string& isa, const std::string& option);

}  // namespace ge
