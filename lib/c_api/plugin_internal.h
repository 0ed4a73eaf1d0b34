// Pieces shared by the plugin loader (plugin_load.cc) and the host table
// (plugin_host.cc).
#pragma once

#include <string>

#include "ge_c/ge_plugin.h"

namespace ge::capi {

// The table handed to every plugin's ge_plugin_register.
const ge_plugin_host& PluginHost();
// The message of the last failed registration call or callback on this thread
// (a stand-in when the plugin set none); clears it.
std::string TakePluginRegistrationError();

}  // namespace ge::capi
