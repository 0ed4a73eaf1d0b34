// ge --version: the version of ge and of the C ABI (ge_c.h) this release
// provides. The tool links the library statically (tools/CMakeLists.txt), so
// the two cannot drift apart.
#include <cstdio>

#include <fmt/core.h>

#include "commands.h"
#include "ge_c/ge_c.h"
#include "json_writer.h"

namespace ge::cli {
namespace {

int Version(const ParsedArgs& args) {
  const std::string abi = fmt::format("{}.{}", GE_C_ABI_MAJOR, GE_C_ABI_MINOR);
  if (args.Has("json")) {
    JsonWriter json;
    json.BeginObject();
    json.Key("ge").String(GE_VERSION_STRING);
    json.Key("c_abi").String(abi);
    json.EndObject();
    std::printf("%s\n", json.str().c_str());
  } else {
    std::printf("ge %s (C ABI %s)\n", GE_VERSION_STRING, abi.c_str());
  }
  return 0;
}

}  // namespace

const Command& VersionCommand() {
  static const Command command{
      {"--version",
       "",
       "Prints the version of ge and of the C ABI it provides.",
       {{"json", "", false, "print one JSON object: {\"ge\", \"c_abi\"}"}}},
      &Version};
  return command;
}

}  // namespace ge::cli
