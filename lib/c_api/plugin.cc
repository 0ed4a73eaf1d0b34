// ge_plugin_load: the C ABI's door to libge's plugin host (ge/plugin.h).
#include "c_api_internal.h"
#include "ge_c/ge_plugin.h"  // declares ge_plugin_load exported

ge_status ge_plugin_load(const char* path) {
  return ge::capi::Guard("ge_plugin_load", [&] { ge::LoadPlugin(ge::capi::RequireString(path, "path")); });
}
