#include "device_support.h"

#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "ge/compiled_model.h"

namespace ge::test {

DeviceBuffer::DeviceBuffer(device::Device& device, size_t bytes)
    : device_(device), data_(device.allocator().Allocate(bytes, Tensor::kAlignment)) {}

DeviceBuffer::~DeviceBuffer() {
  try {
    device_.allocator().Free(data_);
  } catch (const Error& error) {  // a destructor must not throw; the test fails instead
    FAIL_CHECK(error.what());
  }
}

Tensor PseudoRandomTensor(Shape shape, uint32_t seed) {
  Tensor tensor(DataType::kFloat, std::move(shape));
  uint32_t state = seed * 2654435761u + 1;
  float* values = tensor.data_as<float>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    values[i] = static_cast<float>(state >> 8) / static_cast<float>(1 << 23) - 1.0f;
  }
  return tensor;
}

std::vector<Tensor> RunOnDevice(device::Device& device, device::Stream& stream, const Node& node,
                                const std::vector<Tensor>& inputs) {
  const device::KernelDef* def = device.kernels().Find(node.op_type(), node.input(0)->dtype());
  REQUIRE(def != nullptr);
  std::unique_ptr<device::Kernel> kernel = def->factory(node);

  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  // Device memory must outlive the work queued on it: however this function
  // ends (an error included), the stream drains before the buffers are freed.
  struct DrainOnExit {
    device::Stream& stream;
    ~DrainOnExit() {
      try {
        stream.Synchronize();
      } catch (const Error&) {  // the error that ended the run is already on its way out
      }
    }
  } drain{stream};
  std::vector<device::TensorView> input_views;
  for (const Tensor& input : inputs) {
    if (input.empty()) {  // an absent optional input
      input_views.push_back({DataType::kUndefined, &input.shape(), nullptr});
      continue;
    }
    buffers.push_back(std::make_unique<DeviceBuffer>(device, input.nbytes()));
    device.CopyToDevice(buffers.back()->data(), input.data(), input.nbytes(), stream);
    input_views.push_back({input.dtype(), &input.shape(), buffers.back()->data()});
  }
  std::vector<Tensor> outputs;
  std::vector<device::TensorView> output_views;
  for (const Value* value : node.outputs()) outputs.emplace_back(value->dtype(), value->shape());
  for (Tensor& output : outputs) {
    buffers.push_back(std::make_unique<DeviceBuffer>(device, output.nbytes()));
    output_views.push_back({output.dtype(), &output.shape(), buffers.back()->data()});
  }
  kernel->Run({input_views, output_views, nullptr, &stream});
  for (size_t i = 0; i < outputs.size(); ++i) {
    device.CopyToHost(outputs[i].data(), output_views[i].data, outputs[i].nbytes(), stream);
  }
  stream.Synchronize();
  return outputs;
}

std::vector<Tensor> RunOnCpu(const Graph& graph, const std::vector<Tensor>& inputs) {
  return CompiledModel::Compile(graph.Clone())->Run(inputs);
}

double MaxDifference(const Tensor& a, const Tensor& b) {
  REQUIRE(a.num_elements() == b.num_elements());
  double max_difference = 0;
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    max_difference = std::max(max_difference, std::fabs(double(a.data_as<float>()[i]) - b.data_as<float>()[i]));
  }
  return max_difference;
}

}  // namespace ge::test
