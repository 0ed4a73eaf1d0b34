#include "gem_checksum_fixer.h"

#include <cstring>

#include "gem_generated.h"
#include "runtime/model_file/gem_checksum.h"

namespace ge::fuzz {

std::vector<uint8_t> WithValidChecksum(const uint8_t* data, size_t size) {
  std::vector<uint8_t> bytes(data, data + size);
  // Too short to hold a root offset and the identifier.
  if (bytes.size() < 2 * sizeof(flatbuffers::uoffset_t)) return bytes;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (!gem::ModelBufferHasIdentifier(bytes.data()) || !gem::VerifyModelBuffer(verifier)) return bytes;
  const gem::Stamp& stamp = *gem::GetModel(bytes.data())->header()->stamp();
  if (stamp.format_version() == 0) return bytes;
  const size_t offset = static_cast<size_t>(reinterpret_cast<const uint8_t*>(&stamp) - bytes.data());
  const uint64_t checksum = runtime::GemChecksum(bytes.data(), bytes.size(), offset, stamp.format_version());
  std::memcpy(bytes.data() + offset, &checksum, sizeof(checksum));  // the Stamp's first field, little-endian
  return bytes;
}

}  // namespace ge::fuzz
