// Helpers of the ACL device tests: device buffers, running one node's ACL
// kernel on device memory, and the CPU device's answer for the same graph.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/acl/acl_device.h"
#include "device/device.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::test {

// Device memory of one tensor, freed by the destructor.
class DeviceBuffer {
 public:
  DeviceBuffer(device::Device& device, size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* data() const { return data_; }

 private:
  device::Device& device_;
  void* data_;
};

// Deterministic values in [-1, 1) (a fixed linear congruential sequence).
Tensor PseudoRandomTensor(Shape shape, uint32_t seed);

// Creates the node's kernel through device.kernels(), copies `inputs` (one per
// node input, in order; an empty Tensor for an absent one) to device memory on `stream`, runs the kernel there and
// copies its outputs back; synchronizes the stream before returning.
std::vector<Tensor> RunOnDevice(device::Device& device, device::Stream& stream, const Node& node,
                                const std::vector<Tensor>& inputs);

// Compiles a clone of `graph` for the CPU device and runs it.
std::vector<Tensor> RunOnCpu(const Graph& graph, const std::vector<Tensor>& inputs);

// max |a - b|, both float32 of the same element count.
double MaxDifference(const Tensor& a, const Tensor& b);

}  // namespace ge::test
