// The .gem file checksum: detects every single-byte change of a file, so a
// flipped bit is reported as corruption instead of loading wrong weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace ge::runtime {

// A 64-bit hash of data[0, size) in which the 8 bytes at checksum_offset (the
// stored checksum itself) count as zeros. Each 8-byte word goes through an
// invertible mixing step, so any change of one word changes the result.
// Format versions 1 and 2 chain all words through one state; from version 3
// on, four interleaved states are mixed at the end, which hashes a large
// model about four times faster (the chain's multiply latency bounded it).
// `hashed`, when given, is called with the length of the prefix hashed so far
// every few MiB and at the end (a loader hands those pages back as it goes).
uint64_t GemChecksum(const uint8_t* data, size_t size, size_t checksum_offset, uint32_t format_version,
                     const std::function<void(size_t)>& hashed = {});

}  // namespace ge::runtime
