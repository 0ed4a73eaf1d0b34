// Which x86-64 instruction sets the CPU kernels use, and the one variable
// that caps them: GE_MAX_CPU_ISA. It takes oneDNN's ISA names (the values of
// ONEDNN_MAX_CPU_ISA), caps oneDNN's kernels to that ISA and ge's own loop
// kernels (cpu_clones.h) to the matching level:
//   SSE41, AVX                   -> baseline x86-64 (SSE2)
//   AVX2, AVX2_VNNI              -> x86-64-v3 (AVX2, FMA)
//   AVX512_CORE and above, ALL   -> x86-64-v4 (AVX-512 F/BW/DQ/VL)
// A machine without an ISA never runs it, whatever the cap says. With the
// variable unset, ONEDNN_MAX_CPU_ISA (if set) still caps oneDNN alone.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ge::device::cpu {

enum class CpuLevel { kBaseline = 0, kAvx2 = 1, kAvx512 = 2 };

// The level ge's own kernels run at: the best this CPU supports, capped by
// GE_MAX_CPU_ISA. Read once. Never throws: an invalid cap counts as none here
// (CheckCpuIsaCap reports it when a model is compiled).
CpuLevel ActiveCpuLevel();

const char* CpuLevelName(CpuLevel level);

// A oneDNN ISA (a dnnl_cpu_isa_t value) by its ONEDNN_MAX_CPU_ISA name, in
// lower case: the largest named ISA it includes.
std::string DnnlIsaName(unsigned isa);

// The oneDNN ISA (a dnnl_cpu_isa_t value) of a GE_MAX_CPU_ISA name, any
// case; nullopt for an unknown name. IsaNames() lists the valid ones.
std::optional<unsigned> DnnlIsaNamed(std::string_view name);
std::string IsaNames();

// Throws Error(kInvalidArgument) naming GE_MAX_CPU_ISA, its value and the
// valid values, when it is set to something else.
void CheckCpuIsaCap();

// Caps oneDNN to GE_MAX_CPU_ISA; call before oneDNN builds its first
// primitive (later, oneDNN keeps the ISA it already chose).
void CapDnnlIsa();

}  // namespace ge::device::cpu
