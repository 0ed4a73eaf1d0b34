// Picks and builds the kernel of a node from a device's kernel registry.
#pragma once

#include <memory>
#include <string>

#include "device/device.h"

namespace ge::runtime {

struct SelectedKernel {
  std::unique_ptr<device::Kernel> kernel;
  // The implementation mode the kernel runs in: the requested one when the
  // kernel offers it, else the kernel's default ("" when it declares none).
  std::string impl_mode;
};

// The registry entry for the node's op type and dtype. Throws ge::Error
// (kUnsupported) naming the node, its op type and the dtype when the device
// has no kernel for them, listing the dtypes it does have.
const device::KernelDef& FindKernelDef(const device::Device& device, const Node& node);

// FindKernelDef, then the factory (whose own errors pass on).
SelectedKernel SelectKernel(const device::Device& device, const Node& node, const std::string& requested_impl_mode);

}  // namespace ge::runtime
