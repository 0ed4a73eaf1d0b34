// Plugins: shared libraries that add ops, CPU kernels and passes through the
// C plugin ABI (include/ge_c/ge_plugin.h, docs/c-abi.md#plugins).
//
// A plugin built once loads into C++, C and Python programs alike: libge hosts
// it, and the C ABI's ge_plugin_load and GE_PLUGIN_PATH call these functions.
// Loaded libraries stay loaded for the life of the process, since the
// registered schemas, kernels and passes point into them.
#pragma once

#include <string>

#include "ge/export.h"

namespace ge {

// Opens the plugin at `path`, checks the plugin ABI version it declares and
// runs its registration, once per file (a second call for the same file does
// nothing). Throws ge::Error naming the file: kNotFound for a missing file,
// kInvalidArgument for a library that is not a ge plugin, needs a newer plugin
// ABI, or whose registration failed (with the plugin's message).
GE_API void LoadPlugin(const std::string& path);

// Loads the plugins that GE_PLUGIN_PATH names (a colon-separated list of
// plugin files and folders, whose *.so files load in name order), once per
// process. The environment is not one call's argument, so a bad entry is
// reported on stderr and skipped. Every C ABI entry point calls it first.
GE_API void LoadPluginsFromEnvironment() noexcept;

}  // namespace ge
