// Picks and builds the kernel of a node from a device's kernel registry.
#pragma once

#include <memory>
#include <string>

#include "device/device.h"

namespace ge::runtime {

struct SelectedKernel {
  std::unique_ptr<device::Kernel> kernel;
  // The implementation mode the kernel runs in: the node's "_op_impl_mode"
  // attribute (set by the impl_mode pass), else the kernel's default ("" when
  // it declares none).
  std::string impl_mode;
};

// The dtype the registry is keyed by: the node's first input's, or its first
// output's for nodes without inputs.
DataType KernelSelectionDtype(const Node& node);

// The registry entry for the node's op type and dtype. Throws ge::Error
// (kUnsupported) naming the node, its op type and the dtype when the device
// has no kernel for them, listing the dtypes it does have.
const device::KernelDef& FindKernelDef(const device::Device& device, const Node& node);

// FindKernelDef, then the factory (whose own errors pass on); a node whose
// outputs all have zero elements gets a kernel that does nothing instead. Throws
// kUnsupported naming the node when its "_op_impl_mode" is a mode the kernel
// does not implement.
SelectedKernel SelectKernel(const device::Device& device, const Node& node);

}  // namespace ge::runtime
