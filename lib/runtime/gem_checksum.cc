#include "runtime/gem_checksum.h"

#include <algorithm>
#include <cstring>

namespace ge::runtime {

uint64_t GemChecksum(const uint8_t* data, size_t size, size_t checksum_offset) {
  constexpr uint64_t kPrime = 0x100000001b3ULL;  // the 64-bit FNV prime (odd, so multiplying is invertible)
  constexpr size_t kWord = sizeof(uint64_t);
  uint64_t hash = 0xcbf29ce484222325ULL ^ size;
  for (size_t pos = 0; pos < size; pos += kWord) {
    uint8_t bytes[kWord] = {};
    std::memcpy(bytes, data + pos, std::min(kWord, size - pos));
    // Zero the part of this word that overlaps the stored checksum.
    size_t skip_begin = std::max(pos, checksum_offset);
    size_t skip_end = std::min(pos + kWord, checksum_offset + kWord);
    if (skip_begin < skip_end) std::memset(bytes + (skip_begin - pos), 0, skip_end - skip_begin);
    uint64_t word;
    std::memcpy(&word, bytes, kWord);
    hash = (hash ^ word) * kPrime;
    hash ^= hash >> 29;
  }
  return hash;
}

}  // namespace ge::runtime
