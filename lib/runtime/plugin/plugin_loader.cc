// ge::LoadPlugin and GE_PLUGIN_PATH (include/ge/plugin.h): opens a plugin
// library, checks the plugin-ABI version it declares and runs its registration
// once per file. Libraries stay loaded for the life of the process, since the
// registered schemas and kernels point into them.
#include <dlfcn.h>
#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "ge/error.h"
#include "ge/plugin.h"
#include "runtime/plugin/plugin_host.h"

namespace {

namespace fs = std::filesystem;

std::mutex load_mutex;
std::set<std::string> loaded_paths;  // canonical paths, guarded by load_mutex

std::string VersionText(uint32_t version) { return fmt::format("{}.{}", version >> 16, version & 0xffffu); }

// The plugin files named by one GE_PLUGIN_PATH entry: the file itself, or the
// *.so files of a folder in name order.
std::vector<std::string> PluginFiles(const std::string& entry) {
  std::error_code error;
  if (!fs::is_directory(entry, error)) return {entry};
  std::vector<std::string> files;
  for (const fs::directory_entry& file : fs::directory_iterator(entry, error)) {
    if (file.is_regular_file(error) && file.path().extension() == ".so") files.push_back(file.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

namespace ge {

void LoadPlugin(const std::string& path) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    throw Error(ErrorCode::kNotFound, fmt::format("plugin '{}': no such file", path));
  }
  std::string canonical = fs::canonical(path, error).string();
  if (error) canonical = path;
  std::lock_guard lock(load_mutex);
  if (loaded_paths.count(canonical) != 0) return;

  void* library = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("plugin '{}': cannot load the library: {}", path, reason ? reason : "unknown reason"));
  }
  auto abi_version = reinterpret_cast<ge_plugin_abi_version_fn>(dlsym(library, "ge_plugin_abi_version"));
  auto register_plugin = reinterpret_cast<ge_plugin_register_fn>(dlsym(library, "ge_plugin_register"));
  if (abi_version == nullptr || register_plugin == nullptr) {
    dlclose(library);
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("plugin '{}': not a ge plugin (it must export ge_plugin_abi_version and "
                            "ge_plugin_register, include/ge_c/ge_plugin.h)", path));
  }
  uint32_t version = abi_version();
  if ((version >> 16) > GE_PLUGIN_ABI_MAJOR) {
    dlclose(library);
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("plugin '{}' needs plugin ABI {}, newer than this ge's plugin ABI {} (plugins for "
                            "major {} or older load; rebuild the plugin against this ge's ge_plugin.h or "
                            "update ge)", path, VersionText(version), VersionText(GE_PLUGIN_ABI_VERSION),
                            GE_PLUGIN_ABI_MAJOR));
  }
  // A failed registration may have registered part of the plugin, which
  // points into the library: it stays loaded, but is not marked as loaded.
  if (register_plugin(&runtime::PluginHost()) != 0) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("plugin '{}': registration failed: {}", path, runtime::TakePluginRegistrationError()));
  }
  loaded_paths.insert(canonical);
}

void LoadPluginsFromEnvironment() noexcept {
  static std::once_flag once;
  // A plugin whose registration calls back into the C API must not wait for itself.
  static thread_local bool loading = false;
  if (loading) return;
  std::call_once(once, [] {
    loading = true;
    const char* list = std::getenv("GE_PLUGIN_PATH");
    std::string rest = list != nullptr ? list : "";
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string entry = rest.substr(0, colon);
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
      if (entry.empty()) continue;
      // The environment is not one call's argument, so a bad entry is
      // reported on stderr and skipped rather than failing an unrelated call.
      for (const std::string& file : PluginFiles(entry)) {
        try {
          LoadPlugin(file);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "ge: GE_PLUGIN_PATH: %s\n", e.what());
        }
      }
    }
    loading = false;
  });
}

}  // namespace ge
