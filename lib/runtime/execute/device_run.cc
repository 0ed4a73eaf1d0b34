#include "runtime/execute/device_run.h"

#include <fmt/core.h>

#include "ge/error.h"
#include "runtime/execute/arena_pool.h"
#include "runtime/execute/device_constants.h"
#include "runtime/compile/stream_assignment.h"

namespace ge::runtime {
namespace {

// Per-run device buffers of the graph inputs and outputs, freed with the run.
class RunBuffers {
 public:
  explicit RunBuffers(device::Allocator& allocator) : allocator_(allocator) {}
  ~RunBuffers() {
    for (void* buffer : buffers_) {
      try {
        allocator_.Free(buffer);
      } catch (...) {  // a destructor cannot report it
      }
    }
  }
  RunBuffers(const RunBuffers&) = delete;
  RunBuffers& operator=(const RunBuffers&) = delete;

  void* Allocate(size_t bytes) {
    if (bytes == 0) return nullptr;
    buffers_.push_back(nullptr);
    buffers_.back() = allocator_.Allocate(bytes, Tensor::kAlignment);
    return buffers_.back();
  }

 private:
  device::Allocator& allocator_;
  std::vector<void*> buffers_;
};

// The run's streams; every one is synchronized before the buffers it used go
// away, also when enqueueing failed half-way.
class RunStreams {
 public:
  RunStreams(device::Device& device, int count) {
    for (int i = 0; i < count; ++i) streams_.push_back(device.CreateStream());
  }
  ~RunStreams() {
    for (auto& stream : streams_) {
      try {
        stream->Synchronize();
      } catch (...) {  // the run already failed; its first error is the one reported
      }
    }
  }
  RunStreams(const RunStreams&) = delete;
  RunStreams& operator=(const RunStreams&) = delete;

  device::Stream& operator[](int index) { return *streams_[static_cast<size_t>(index)]; }
  // Waits for all streams; throws the first stream error.
  void SynchronizeAll() {
    for (auto& stream : streams_) stream->Synchronize();
  }

 private:
  std::vector<std::unique_ptr<device::Stream>> streams_;
};

}  // namespace

std::vector<Tensor> RunOnDevice(const CompiledModel::Impl& impl, const std::vector<Tensor>& inputs) {
  device::Device& device = *impl.device;
  ArenaPool::Lease arena = impl.arenas->Acquire();
  RunBuffers buffers(device.allocator());
  const int stream_count = std::max(impl.stream_count, 1);
  // Declared before the streams, so that they outlive the final synchronization.
  std::unique_ptr<device::Event> inputs_ready = device.CreateEvent();
  std::vector<std::unique_ptr<device::Event>> events(impl.steps.size());
  RunStreams streams(device, stream_count);

  // The stream each value is produced on: inputs and constants are ready on stream 0.
  std::vector<int> stream_of(impl.values.size(), 0);
  for (const Step& step : impl.steps) {
    for (int id : step.outputs) stream_of[static_cast<size_t>(id)] = step.stream;
  }

  std::vector<void*> address(impl.values.size(), nullptr);
  std::vector<Tensor> outputs;
  outputs.reserve(impl.outputs.size());
  for (const TensorInfo& info : impl.outputs) outputs.emplace_back(info.dtype, info.shape);
  for (size_t id = 0; id < impl.values.size(); ++id) {
    const Storage& storage = impl.storage[id];
    switch (storage.kind) {
      case StorageKind::kGraphInput: {
        const Tensor& input = inputs[storage.index];
        address[id] = buffers.Allocate(input.nbytes());
        if (input.nbytes() > 0) device.CopyToDevice(address[id], input.data(), input.nbytes(), streams[0]);
        break;
      }
      case StorageKind::kConstant:
        address[id] = impl.device_constants->address(storage.index);
        break;
      case StorageKind::kArena:
        address[id] = arena.data() + storage.offset;
        break;
      case StorageKind::kGraphOutput:
        address[id] = buffers.Allocate(outputs[storage.index].nbytes());
        break;
    }
  }

  // Streams other than 0 start after the input copies.
  inputs_ready->Record(streams[0]);
  for (int s = 1; s < stream_count; ++s) streams[s].Wait(*inputs_ready);

  const std::vector<bool> signals = EventSources(impl.steps);
  std::vector<device::TensorView> step_inputs, step_outputs;
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const Step& step = impl.steps[s];
    device::Stream& stream = streams[step.stream];
    for (int producer : step.waits) stream.Wait(*events[static_cast<size_t>(producer)]);
    if (!step.is_view) {
      step_inputs.clear();
      step_outputs.clear();
      auto view = [&](int id) {
        if (id < 0) return device::TensorView{};
        const Value& value = *impl.values[static_cast<size_t>(id)];
        return device::TensorView{value.dtype(), &value.shape(), address[static_cast<size_t>(id)]};
      };
      for (int id : step.inputs) step_inputs.push_back(view(id));
      for (int id : step.outputs) step_outputs.push_back(view(id));
      device::KernelContext ctx;
      ctx.inputs = step_inputs;
      ctx.outputs = step_outputs;
      ctx.workspace = step.workspace_bytes > 0 ? arena.data() + step.workspace_offset : nullptr;
      ctx.stream = &stream;
      step.kernel->Run(ctx);
    }
    if (signals[s]) {
      events[s] = device.CreateEvent();
      events[s]->Record(stream);
    }
  }

  for (size_t position = 0; position < outputs.size(); ++position) {
    const size_t id = static_cast<size_t>(impl.output_values[position]);
    if (outputs[position].nbytes() == 0) continue;
    device.CopyToHost(outputs[position].data(), address[id], outputs[position].nbytes(), streams[stream_of[id]]);
  }
  streams.SynchronizeAll();
  return outputs;
}

}  // namespace ge::runtime
