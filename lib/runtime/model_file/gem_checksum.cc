#include "runtime/model_file/gem_checksum.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace ge::runtime {
namespace {

constexpr uint64_t kPrime = 0x100000001b3ULL;  // the 64-bit FNV prime (odd, so multiplying is invertible)
constexpr size_t kWord = sizeof(uint64_t);
constexpr uint32_t kFirstInterleavedVersion = 3;
constexpr size_t kLanes = 4;
constexpr size_t kReportEvery = size_t{4} << 20;  // a multiple of kLanes * kWord

// The word at `pos`, zero-padded past the end, with the stored checksum's bytes zeroed.
uint64_t WordAt(const uint8_t* data, size_t size, size_t checksum_offset, size_t pos) {
  uint8_t bytes[kWord] = {};
  std::memcpy(bytes, data + pos, std::min(kWord, size - pos));
  const size_t skip_begin = std::max(pos, checksum_offset);
  const size_t skip_end = std::min(pos + kWord, checksum_offset + kWord);
  if (skip_begin < skip_end) std::memset(bytes + (skip_begin - pos), 0, skip_end - skip_begin);
  uint64_t word;
  std::memcpy(&word, bytes, kWord);
  return word;
}

uint64_t Mix(uint64_t hash, uint64_t word) {
  hash = (hash ^ word) * kPrime;
  return hash ^ (hash >> 29);
}

uint64_t Seed(size_t size) { return 0xcbf29ce484222325ULL ^ size; }

uint64_t ChainedChecksum(const uint8_t* data, size_t size, size_t checksum_offset,
                         const std::function<void(size_t)>& hashed) {
  uint64_t hash = Seed(size);
  for (size_t pos = 0; pos < size; pos += kWord) {
    hash = Mix(hash, WordAt(data, size, checksum_offset, pos));
    if (hashed && (pos + kWord) % kReportEvery == 0) hashed(pos + kWord);
  }
  return hash;
}

uint64_t InterleavedChecksum(const uint8_t* data, size_t size, size_t checksum_offset,
                             const std::function<void(size_t)>& hashed) {
  std::array<uint64_t, kLanes> lanes;
  for (size_t lane = 0; lane < kLanes; ++lane) lanes[lane] = Seed(size) + lane;
  constexpr size_t kBlock = kLanes * kWord;
  const size_t whole_blocks = size / kBlock * kBlock;
  size_t pos = 0;
  for (; pos < whole_blocks; pos += kBlock) {
    // Only the block (or two) holding the stored checksum needs the careful read.
    const bool plain = pos + kBlock <= checksum_offset || pos >= checksum_offset + kWord;
    for (size_t lane = 0; lane < kLanes; ++lane) {
      uint64_t word;
      if (plain) {
        std::memcpy(&word, data + pos + lane * kWord, kWord);
      } else {
        word = WordAt(data, size, checksum_offset, pos + lane * kWord);
      }
      lanes[lane] = Mix(lanes[lane], word);
    }
    if (hashed && (pos + kBlock) % kReportEvery == 0) hashed(pos + kBlock);
  }
  for (size_t lane = 0; pos < size; pos += kWord, ++lane) {
    lanes[lane] = Mix(lanes[lane], WordAt(data, size, checksum_offset, pos));
  }
  uint64_t hash = Seed(size);
  for (uint64_t lane : lanes) hash = Mix(hash, lane);
  return hash;
}

}  // namespace

uint64_t GemChecksum(const uint8_t* data, size_t size, size_t checksum_offset, uint32_t format_version,
                     const std::function<void(size_t)>& hashed) {
  const uint64_t hash = format_version < kFirstInterleavedVersion
                            ? ChainedChecksum(data, size, checksum_offset, hashed)
                            : InterleavedChecksum(data, size, checksum_offset, hashed);
  if (hashed) hashed(size);
  return hash;
}

}  // namespace ge::runtime
