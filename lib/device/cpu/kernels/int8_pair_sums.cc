#include "device/cpu/kernels/int8_pair_sums.h"

#include <algorithm>

#include "device/cpu/kernels/dnnl_utils.h"

namespace ge::device::cpu {

bool Int8HasVnni(unsigned isa) {
  // avx512_core_vnni and its successors (bf16, amx) carry this bit; avx2_vnni
  // does not, so AVX2-VNNI CPUs take the unsigned path, which is exact there too.
  constexpr unsigned kAvx512VnniBit = dnnl_cpu_isa_avx512_core_vnni & ~dnnl_cpu_isa_avx512_core;
  return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core && (isa & kAvx512VnniBit) != 0;
}

bool DnnlInt8HasVnni() { return Int8HasVnni(DnnlIsa()); }

bool WeightsArePairSafe(std::span<const int8_t> weights) {
  return std::all_of(weights.begin(), weights.end(),
                     [](int8_t w) { return w >= -kPairSafeWeight && w <= kPairSafeWeight; });
}

}  // namespace ge::device::cpu
