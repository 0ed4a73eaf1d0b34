// The host side of the C plugin ABI (include/ge_c/ge_plugin.h), shared by the
// host table (plugin_host.cc) and the loader (plugin_loader.cc).
#pragma once

#include <string>

#include "ge_c/ge_plugin.h"

namespace ge::runtime {

// The table handed to every plugin's ge_plugin_register.
const ge_plugin_host& PluginHost();
// The message of the last failed registration call or callback on this thread
// (a stand-in when the plugin set none); clears it.
std::string TakePluginRegistrationError();

}  // namespace ge::runtime
