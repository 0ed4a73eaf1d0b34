#include "gem_header.h"

#include <memory>

#include <flatbuffers/flatbuffers.h>
#include <fmt/core.h>

#include "gem_generated.h"
#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "graph/mapped_file.h"

namespace ge::cli {

bool HasGemIdentifier(std::string_view head) {
  // A FlatBuffers file identifier sits after the 4-byte root offset.
  return head.size() >= flatbuffers::kFileIdentifierLength + sizeof(flatbuffers::uoffset_t) &&
         flatbuffers::BufferHasIdentifier(head.data(), gem::ModelIdentifier());
}

GemHeader ReadGemHeader(const std::string& path) {
  // Mapped rather than read: a .gem holds the weights too.
  const std::shared_ptr<const MappedFile> file = MappedFile::Open(path);
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), file->size());
  flatbuffers::Verifier verifier(file->data(), file->size());
  if (!HasGemIdentifier(bytes) || !gem::VerifyModelBuffer(verifier)) {
    throw Error(ErrorCode::kInvalidModel, EscapeForMessage(fmt::format("'{}' is not a valid .gem file", path)));
  }
  const gem::Header* header = gem::GetModel(bytes.data())->header();
  auto text = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
  return {header->stamp()->format_version(), text(header->producer()), text(header->target_device()),
          text(header->isa())};
}

}  // namespace ge::cli
