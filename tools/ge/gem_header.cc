#include "gem_header.h"

#include <fstream>
#include <iterator>

#include <flatbuffers/flatbuffers.h>
#include <fmt/core.h>

#include "gem_generated.h"
#include "ge/error.h"

namespace ge::cli {

bool HasGemIdentifier(std::string_view head) {
  // A FlatBuffers file identifier sits after the 4-byte root offset.
  return head.size() >= flatbuffers::kFileIdentifierLength + sizeof(flatbuffers::uoffset_t) &&
         flatbuffers::BufferHasIdentifier(head.data(), gem::ModelIdentifier());
}

GemHeader ReadGemHeader(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCode::kNotFound, fmt::format("cannot open .gem file '{}'", path));
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  flatbuffers::Verifier verifier(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  if (!HasGemIdentifier(bytes) || !gem::VerifyModelBuffer(verifier)) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("'{}' is not a valid .gem file", path));
  }
  const gem::Header* header = gem::GetModel(bytes.data())->header();
  auto text = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
  return {header->stamp()->format_version(), text(header->producer()), text(header->target_device()),
          text(header->isa())};
}

}  // namespace ge::cli
