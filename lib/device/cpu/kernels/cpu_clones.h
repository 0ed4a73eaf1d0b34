// Per-CPU code paths for hot loops. The library targets baseline x86-64
// (SSE2: two doubles or four floats per vector), so a loop kernel marked
// GE_CPU_CLONES is compiled once more for x86-64-v3 (AVX2) and once for
// x86-64-v4 (AVX-512 F/BW/DQ/VL: VL and BW give the narrowing moves to int8,
// and this arch, unlike a bare "avx512f" target, vectorizes 512 bits wide),
// and the dynamic loader binds the best the running CPU supports (an ifunc,
// resolved once). Mark only free functions that hold the whole hot loop: a
// clone is never inlined into its caller, while what it calls is inlined into
// each clone and vectorized there. Loops inside a clone must not use OpenMP
// threads (the outlined body would be compiled for the baseline only); call
// the clone per chunk from a parallel loop outside. Other compilers and
// targets get the baseline function.
//
// Clone only loops over floating-point elements (kClonesPay): they carry the
// activations of real models, while integer and bool loops carry shapes,
// indices and masks, small enough for the baseline. Each clone is a full copy
// of the loop's code, so cloning every dtype of a kernel templated over twelve
// would make its file the slowest of the build.
#pragma once

#include <type_traits>

#include "device/cpu/kernels/element_types.h"

#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && !defined(__clang__)
#define GE_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define GE_CPU_CLONES
#endif

namespace ge::device::cpu {

template <typename T>
inline constexpr bool kClonesPay = std::is_floating_point_v<T> || kIsHalf<T>;

}  // namespace ge::device::cpu
