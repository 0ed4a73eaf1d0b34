// The header of a .gem file (lib/runtime/model_file/gem.fbs): what `ge info` shows about
// the file itself, and the magic `ge run` uses to tell a .gem from an ONNX file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ge::cli {

struct GemHeader {
  uint32_t format_version = 0;
  std::string producer;       // "ge <version>"
  std::string target_device;  // the device the plan was made for
  std::string isa;            // the host instruction set at compile time
};

// True when `head` (the first bytes of a file) carries the .gem file identifier.
bool HasGemIdentifier(std::string_view head);

// Throws ge::Error naming the file when it cannot be read or is not a .gem file.
GemHeader ReadGemHeader(const std::string& path);

}  // namespace ge::cli
