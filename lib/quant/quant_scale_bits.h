// Encoding of the uint64 scale words of AscendDequant (deq_scale) and
// AscendRequant (req_scale): bits 0-31 hold the fp32 bit pattern of the
// scale, bits 32-39 an unsigned shift N, bits 40-48 (requant only) a 9-bit
// two's-complement offset. The rewrite never asks for a shift (N = 0); the
// kernels carry their own decoder, so this header only encodes.
#pragma once

#include <bit>
#include <cstdint>

namespace ge::quant {

inline constexpr int kScaleShiftBit = 32;
inline constexpr int kScaleOffsetBit = 40;
inline constexpr int kScaleOffsetBits = 9;

// A deq_scale word: the scale's fp32 bits with shift N (0..255).
inline uint64_t PackDequantScale(float scale, uint32_t shift = 0) {
  return static_cast<uint64_t>(std::bit_cast<uint32_t>(scale)) |
         (static_cast<uint64_t>(shift & 0xFFu) << kScaleShiftBit);
}

// A req_scale word: the deq_scale word plus the output offset (-256..255) in
// 9-bit two's complement.
inline uint64_t PackRequantScale(float scale, int32_t offset, uint32_t shift = 0) {
  const uint64_t offset_bits = static_cast<uint64_t>(static_cast<uint32_t>(offset)) & ((1u << kScaleOffsetBits) - 1);
  return PackDequantScale(scale, shift) | (offset_bits << kScaleOffsetBit);
}

}  // namespace ge::quant
