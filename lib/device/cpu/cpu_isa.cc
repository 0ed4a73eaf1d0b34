#include "device/cpu/cpu_isa.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <string_view>

#include <dnnl.hpp>
#include <fmt/core.h>

#include "ge/error.h"

namespace ge::device::cpu {
namespace {

constexpr const char* kVariable = "GE_MAX_CPU_ISA";

struct IsaName {
  std::string_view name;
  dnnl::cpu_isa dnnl;
  CpuLevel level;
};

constexpr std::array kIsaNames = {
    IsaName{"SSE41", dnnl::cpu_isa::sse41, CpuLevel::kBaseline},
    IsaName{"AVX", dnnl::cpu_isa::avx, CpuLevel::kBaseline},
    IsaName{"AVX2", dnnl::cpu_isa::avx2, CpuLevel::kAvx2},
    IsaName{"AVX2_VNNI", dnnl::cpu_isa::avx2_vnni, CpuLevel::kAvx2},
    IsaName{"AVX512_CORE", dnnl::cpu_isa::avx512_core, CpuLevel::kAvx512},
    IsaName{"AVX512_CORE_VNNI", dnnl::cpu_isa::avx512_core_vnni, CpuLevel::kAvx512},
    IsaName{"AVX512_CORE_BF16", dnnl::cpu_isa::avx512_core_bf16, CpuLevel::kAvx512},
    IsaName{"AVX512_CORE_AMX", dnnl::cpu_isa::avx512_core_amx, CpuLevel::kAvx512},
    IsaName{"ALL", dnnl::cpu_isa::all, CpuLevel::kAvx512},
};

const IsaName* FindIsa(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const IsaName& isa : kIsaNames) {
    if (isa.name == upper) return &isa;
  }
  return nullptr;
}

// The cap as set: nullopt when unset; a null entry when set to an unknown name.
struct Cap {
  std::optional<std::string> value;
  const IsaName* isa = nullptr;
};

const Cap& ReadCap() {
  static const Cap cap = [] {
    Cap read;
    const char* value = std::getenv(kVariable);
    if (value == nullptr || *value == '\0') return read;
    read.value = value;
    read.isa = FindIsa(value);
    return read;
  }();
  return cap;
}

CpuLevel DetectedLevel() {
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("x86-64-v4")) return CpuLevel::kAvx512;
  if (__builtin_cpu_supports("x86-64-v3")) return CpuLevel::kAvx2;
#endif
  return CpuLevel::kBaseline;
}

}  // namespace

CpuLevel ActiveCpuLevel() {
  static const CpuLevel level = [] {
    const CpuLevel detected = DetectedLevel();
    const Cap& cap = ReadCap();
    return cap.isa != nullptr ? std::min(detected, cap.isa->level) : detected;
  }();
  return level;
}

const char* CpuLevelName(CpuLevel level) {
  switch (level) {
    case CpuLevel::kAvx512:
      return "avx512";
    case CpuLevel::kAvx2:
      return "avx2";
    case CpuLevel::kBaseline:
      break;
  }
  return "baseline";
}

std::string DnnlIsaName(unsigned isa) {
  std::string name = "none";
  for (const IsaName& known : kIsaNames) {
    const auto bits = static_cast<unsigned>(known.dnnl);
    if (known.dnnl != dnnl::cpu_isa::all && (isa & bits) == bits) name = known.name;
  }
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

std::optional<unsigned> DnnlIsaNamed(std::string_view name) {
  const IsaName* isa = FindIsa(name);
  if (isa == nullptr) return std::nullopt;
  return static_cast<unsigned>(isa->dnnl);
}

std::string IsaNames() {
  std::string names;
  for (const IsaName& isa : kIsaNames) names += fmt::format("{}{}", names.empty() ? "" : ", ", isa.name);
  return names;
}

void CheckCpuIsaCap() {
  const Cap& cap = ReadCap();
  if (!cap.value || cap.isa != nullptr) return;
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("environment variable {} is '{}'; valid values: {}", kVariable, *cap.value, IsaNames()));
}

void CapDnnlIsa() {
  const Cap& cap = ReadCap();
  if (cap.isa == nullptr) return;
  try {
    dnnl::set_max_cpu_isa(cap.isa->dnnl);
  } catch (const dnnl::error&) {
    // oneDNN was used before ge (by the application): it keeps the ISA it chose.
  }
}

}  // namespace ge::device::cpu
