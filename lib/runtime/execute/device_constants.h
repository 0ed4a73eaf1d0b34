// A model's constants copied once into the memory of a device that does not
// share the host's (an NPU), and freed with the model.
#pragma once

#include <vector>

#include "device/device.h"
#include "ge/tensor.h"

namespace ge::runtime {

class DeviceConstants {
 public:
  // Copies every constant and waits for the copies; throws what the device throws.
  DeviceConstants(device::Device& device, const std::vector<Tensor>& constants);
  ~DeviceConstants();
  DeviceConstants(const DeviceConstants&) = delete;
  DeviceConstants& operator=(const DeviceConstants&) = delete;

  // Device address of StorageKind::kConstant index `index` (null for an empty constant).
  void* address(size_t index) const { return buffers_[index]; }

 private:
  void FreeAll() noexcept;

  device::Device& device_;
  std::vector<void*> buffers_;
};

}  // namespace ge::runtime
