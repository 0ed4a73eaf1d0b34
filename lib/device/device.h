// Device abstraction. Every device looks like a discrete asynchronous
// accelerator: memory of its own, copies to and from the host, in-order
// streams and events. The CPU implements it with host memory; ACL with
// aclrtMalloc / aclrtStream / aclrtEvent.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "passes/pass.h"

namespace ge::device {

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual void* Allocate(size_t bytes, size_t alignment) = 0;
  virtual void Free(void* ptr) = 0;
};

class Event;

// An in-order queue of work on the device.
class Stream {
 public:
  virtual ~Stream() = default;
  virtual void Launch(std::function<void()> work) = 0;
  virtual void Wait(Event& event) = 0;  // later work waits until event is recorded
  virtual void Synchronize() = 0;       // host waits for all launched work
};

class Event {
 public:
  virtual ~Event() = default;
  virtual void Record(Stream& stream) = 0;
  virtual void Synchronize() = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  virtual std::string name() const = 0;
  // True when device memory is host memory (no copies needed).
  virtual bool host_memory() const = 0;
  virtual Allocator& allocator() = 0;
  virtual std::unique_ptr<Stream> CreateStream() = 0;
  virtual std::unique_ptr<Event> CreateEvent() = 0;
  virtual void CopyToDevice(void* dst, const void* src, size_t bytes, Stream& stream) = 0;
  virtual void CopyToHost(void* dst, const void* src, size_t bytes, Stream& stream) = 0;
  virtual const KernelRegistry& kernels() const = 0;
  // The device's own graph rewrites (layouts, kernel fusions), in run order:
  // the compiler runs them in PassStage::kDevice on the graphs compiled for
  // this device. None by default.
  virtual std::vector<std::unique_ptr<Pass>> RewritePasses() const { return {}; }
  // A constant weight that the kernels of its uses read only in one packed
  // layout at every shape, packed into it (`bytes`: the constant's dtype and
  // shape over the packed bytes; `layout`: what PrepackedWeights names it);
  // nullopt when some use would read the weight itself. A dynamic model keeps
  // such weights only packed under ge.exec.releasePackedConstants. None by default.
  struct PackedWeight {
    Tensor bytes;
    std::string layout;
    size_t packed_bytes = 0;  // the layout's size, at least bytes.nbytes()
  };
  virtual std::optional<PackedWeight> PackForEveryShape(const Value& weight) const {
    (void)weight;
    return std::nullopt;
  }
};

// The CPU device, created on first use.
Device& CpuDevice();
// Adds a kernel to the CPU device's registry: plugins (lib/c_api/plugin_host.cc)
// do, before the graphs that use it are compiled (the registry has no lock).
void RegisterCpuKernel(KernelDef def);

}  // namespace ge::device
