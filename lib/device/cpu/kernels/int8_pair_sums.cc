#include "device/cpu/kernels/int8_pair_sums.h"

#include <algorithm>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/dnnl_utils.h"

namespace ge::device::cpu {

bool Int8HasVnni(unsigned isa) {
  // avx512_core_vnni and its successors (bf16, amx) carry this bit; avx2_vnni
  // does not, so AVX2-VNNI CPUs take the unsigned path, which is exact there too.
  constexpr unsigned kAvx512VnniBit = dnnl_cpu_isa_avx512_core_vnni & ~dnnl_cpu_isa_avx512_core;
  return (isa & dnnl_cpu_isa_avx512_core) == dnnl_cpu_isa_avx512_core && (isa & kAvx512VnniBit) != 0;
}

bool DnnlInt8HasVnni() { return Int8HasVnni(DnnlIsa()); }

namespace {

// Takes its operands by value: a loop written inside PerCpu's lambda would
// read them through the closure, and its byte stores may alias the closure,
// so nothing would vectorize.
void ToUnsignedLoop(const int8_t* x, uint8_t* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = ToUnsigned(x[i]);
}

}  // namespace

void ToUnsignedSpan(const int8_t* x, uint8_t* y, int64_t n) {
  PerCpu([&] { ToUnsignedLoop(x, y, n); });
}

bool WeightsArePairSafe(std::span<const int8_t> weights) {
  return std::all_of(weights.begin(), weights.end(),
                     [](int8_t w) { return w >= -kPairSafeWeight && w <= kPairSafeWeight; });
}

}  // namespace ge::device::cpu
