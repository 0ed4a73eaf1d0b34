// Passes registered from outside ge (plugins, lib/c_api/plugin_host.cc) that
// every PassManager::WithBuiltinPasses() pipeline includes, after the built-in
// passes of their stage.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "passes/pass.h"

namespace ge {

using PassFactory = std::function<std::unique_ptr<Pass>()>;

// Throws when a built-in or an extra pass already has the name.
void RegisterExtraPass(PassStage stage, const std::string& name, PassFactory factory);

}  // namespace ge
