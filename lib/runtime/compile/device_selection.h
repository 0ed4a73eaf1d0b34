// The device a model compiles for and runs on (ge.exec.device, docs/ascend.md).
#pragma once

#include <memory>

#include "device/device.h"
#include "runtime/options.h"

namespace ge::runtime {

// The CPU device (shared, never destroyed), or a new Ascend device over ACL
// with the precision and implementation-mode options handed to ACL's op
// compiler. Throws kUnsupported for "ascend" in a build without GE_WITH_ACL.
std::shared_ptr<device::Device> SelectDevice(const RuntimeOptions& settings);

}  // namespace ge::runtime
