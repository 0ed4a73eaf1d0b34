// Exact int8 products on CPUs without VNNI.
//
// Without VNNI, oneDNN's int8 convolution and matmul multiply with
// vpmaddubsw: u8 x s8 products summed in pairs into int16, which saturates
// once a pair passes 32767 (255 * 127 * 2 does). For s8 activations oneDNN
// avoids that by halving the weights ("scale adjust 0.5"), which drops their
// low bit: the results are off by hundreds. Two facts give exact sums:
//   - u8 activations are not scale-adjusted, and with every |weight| <= 64 a
//     pair is at most 255 * 64 * 2 = 32640: no saturation. An s8 activation
//     becomes u8 by adding 128 (a bit flip), its zero point with it.
//   - a weight outside [-64, 64] splits into two that are inside: w = high +
//     low, high = clamp(w, -64, 64), low = w - high. Doubling the reduction
//     axis, each activation taken twice, once against high and once against
//     low, gives the same sum at twice the multiplies.
// Depthwise convolutions (one input channel per group) form no pairs and need
// no split. `ge quantize` keeps weights inside [-64, 64] when it quantizes for
// such a CPU, so its models take the single pass.
#pragma once

#include <cstdint>
#include <span>

namespace ge::device::cpu {

// True when oneDNN's int8 kernels on this CPU (under ONEDNN_MAX_CPU_ISA and
// GE_MAX_CPU_ISA) multiply with AVX-512 VNNI: s8 activations are exact as they are.
bool DnnlInt8HasVnni();
// The same for a oneDNN ISA (a dnnl_cpu_isa_t value).
bool Int8HasVnni(unsigned dnnl_isa);

// The largest |weight| whose u8 x s8 pair sums cannot saturate int16.
inline constexpr int kPairSafeWeight = 64;

bool WeightsArePairSafe(std::span<const int8_t> weights);

inline int8_t PairSafeHigh(int8_t w) {
  return static_cast<int8_t>(w > kPairSafeWeight ? kPairSafeWeight : w < -kPairSafeWeight ? -kPairSafeWeight : w);
}
inline int8_t PairSafeLow(int8_t w) { return static_cast<int8_t>(w - PairSafeHigh(w)); }

// s8 -> u8 by adding 128; a zero point moves with it.
inline uint8_t ToUnsigned(int8_t x) { return static_cast<uint8_t>(static_cast<uint8_t>(x) ^ 0x80u); }
inline constexpr int32_t kUnsignedShift = 128;

// y[i] = ToUnsigned(x[i]) for n elements, vectorized per CPU.
void ToUnsignedSpan(const int8_t* x, uint8_t* y, int64_t n);

}  // namespace ge::device::cpu
