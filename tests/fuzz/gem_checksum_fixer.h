// Recomputes a .gem's checksum over mutated bytes, so that the gem fuzzer
// reaches the loader's validation rather than stopping at the checksum.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ge::fuzz {

// The bytes, with the stamp's checksum recomputed when they verify as a
// .gem FlatBuffer; otherwise unchanged (the loader refuses them anyway).
std::vector<uint8_t> WithValidChecksum(const uint8_t* data, size_t size);

}  // namespace ge::fuzz
