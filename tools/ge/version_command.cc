// ge --version: the version of the tool, and of the library it runs on as that
// library reports it (an installed ge/libge pair can drift apart; a bug
// report needs both).
#include <cstdint>
#include <cstdio>

#include <fmt/core.h>

#include "commands.h"
#include "ge_c/ge_c.h"
#include "json_writer.h"

namespace ge::cli {
namespace {

int Version(const ParsedArgs& args) {
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  ge_abi_version(&abi_major, &abi_minor);
  const std::string abi = fmt::format("{}.{}", abi_major, abi_minor);
  if (args.Has("json")) {
    JsonWriter json;
    json.BeginObject();
    json.Key("ge").String(GE_VERSION_STRING);
    json.Key("library").String(ge_version());
    json.Key("c_abi").String(abi);
    json.EndObject();
    std::printf("%s\n", json.str().c_str());
  } else {
    std::printf("ge %s (library %s, C ABI %s)\n", GE_VERSION_STRING, ge_version(), abi.c_str());
  }
  return 0;
}

}  // namespace

const Command& VersionCommand() {
  static const Command command{
      {"--version",
       "",
       "Prints the version of ge, of the library it runs on and of that library's C ABI.",
       {{"json", "", false, "print one JSON object: {\"ge\", \"library\", \"c_abi\"}"}}},
      &Version};
  return command;
}

}  // namespace ge::cli
