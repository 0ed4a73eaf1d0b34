// Per-CPU code paths for hot loops. The library targets baseline x86-64
// (SSE2: two doubles or four floats per vector), so a loop run through
// PerCpu is compiled twice more, for x86-64-v3 (AVX2, FMA) and x86-64-v4
// (AVX-512 F/BW/DQ/VL: VL and BW give the narrowing moves to int8, and this
// arch, unlike a bare "avx512f" target, vectorizes 512 bits wide), and each
// call runs the copy for ActiveCpuLevel() (cpu_isa.h): the best the CPU has,
// capped by GE_MAX_CPU_ISA, so tests can run every path on one machine.
//
// PerCpu([&] { return Loop(args...); }) inlines the lambda and all it calls
// into a function compiled for the level (flatten), where the loops are
// vectorized; the dispatch is one predictable branch per call. Keep the loop
// in a function that takes its operands by value: written in the lambda, it
// would read them through the closure, and stores that may alias it (bytes
// alias anything) stop the vectorizer. Pass loops
// that hold the whole hot loop, not one element. Loops inside must not use
// OpenMP threads (the outlined body would be compiled for the baseline only):
// call PerCpu per chunk from a parallel loop outside. Other compilers and
// targets run the baseline.
//
// Copy only loops over floating-point elements (kClonesPay): they carry the
// activations of real models, while integer and bool loops carry shapes,
// indices and masks, small enough for the baseline. Each level is a full
// copy of the loop's code, so a kernel templated over twelve dtypes that
// copied them all would make its file the slowest of the build.
#pragma once

#include <type_traits>

#include "device/cpu/cpu_isa.h"
#include "device/cpu/kernels/element_types.h"

namespace ge::device::cpu {

template <typename T>
inline constexpr bool kClonesPay = std::is_floating_point_v<T> || kIsHalf<T>;

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

template <typename Loop>
[[gnu::target("arch=x86-64-v4"), gnu::flatten]] inline decltype(auto) RunForAvx512(Loop& loop) {
  return loop();
}

template <typename Loop>
[[gnu::target("arch=x86-64-v3"), gnu::flatten]] inline decltype(auto) RunForAvx2(Loop& loop) {
  return loop();
}

// kPays false (a loop over integers, say) runs the baseline, and compiles it once.
template <bool kPays = true, typename Loop>
inline decltype(auto) PerCpu(Loop&& loop) {
  if constexpr (!kPays) return loop();
  switch (ActiveCpuLevel()) {
    case CpuLevel::kAvx512:
      return RunForAvx512(loop);
    case CpuLevel::kAvx2:
      return RunForAvx2(loop);
    case CpuLevel::kBaseline:
      break;
  }
  return loop();
}

#else

template <bool kPays = true, typename Loop>
inline decltype(auto) PerCpu(Loop&& loop) {
  return loop();
}

#endif

}  // namespace ge::device::cpu
