#include "runtime/execute/device_constants.h"

namespace ge::runtime {

DeviceConstants::DeviceConstants(device::Device& device, const std::vector<Tensor>& constants) : device_(device) {
  buffers_.reserve(constants.size());
  try {
    std::unique_ptr<device::Stream> stream = device.CreateStream();
    for (const Tensor& constant : constants) {
      void* buffer = nullptr;
      if (constant.nbytes() > 0) {
        buffer = device.allocator().Allocate(constant.nbytes(), Tensor::kAlignment);
        buffers_.push_back(buffer);
        device.CopyToDevice(buffer, constant.data(), constant.nbytes(), *stream);
      } else {
        buffers_.push_back(nullptr);
      }
    }
    stream->Synchronize();
  } catch (...) {
    FreeAll();
    throw;
  }
}

DeviceConstants::~DeviceConstants() { FreeAll(); }

void DeviceConstants::FreeAll() noexcept {
  for (void* buffer : buffers_) {
    if (buffer == nullptr) continue;
    try {
      device_.allocator().Free(buffer);
    } catch (...) {  // a destructor cannot report it; the device's own error log has it
    }
  }
  buffers_.clear();
}

}  // namespace ge::runtime
