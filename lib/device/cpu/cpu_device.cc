// The CPU device: host memory presented through the same discrete-accelerator
// interface as an NPU (allocator, streams, events, copies), so the runtime
// drives every device the same way.
//
// Streams run launched work inline, in the order it is launched: the calling
// thread is the stream. Events still carry real cross-thread semantics, so a
// runtime that drives each stream from its own host thread stays correct.
#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/packed_rows_product.h"
#include "device/cpu/passes/cpu_rewrite_passes.h"
#include "device/device.h"
#include "ge/error.h"

namespace ge::device {

namespace {

class CpuAllocator final : public Allocator {
 public:
  void* Allocate(size_t bytes, size_t alignment) override {
    // aligned_alloc wants a power-of-two alignment of at least the pointer
    // size and a size that is a multiple of it.
    size_t align = std::max<size_t>(alignment, Tensor::kAlignment);
    if ((align & (align - 1)) != 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("cpu allocator: alignment {} is not a power of two", alignment));
    }
    size_t rounded = (std::max<size_t>(bytes, 1) + align - 1) / align * align;
    void* ptr = std::aligned_alloc(align, rounded);
    if (ptr == nullptr) {
      throw Error(ErrorCode::kInternal, fmt::format("cpu allocator: out of memory allocating {} bytes", bytes));
    }
    return ptr;
  }
  void Free(void* ptr) override { std::free(ptr); }
};

// Counts how many times the event was recorded and how many of those records
// have been reached by their stream; waiting means waiting for the records
// issued so far.
class CpuEvent final : public Event {
 public:
  void Record(Stream& stream) override {
    uint64_t generation;
    {
      std::lock_guard lock(mutex_);
      generation = ++issued_;
    }
    stream.Launch([this, generation] {
      std::lock_guard lock(mutex_);
      completed_ = std::max(completed_, generation);
      reached_.notify_all();
    });
  }

  void Synchronize() override { WaitFor(IssuedGeneration()); }

  uint64_t IssuedGeneration() const {
    std::lock_guard lock(mutex_);
    return issued_;
  }

  void WaitFor(uint64_t generation) {
    std::unique_lock lock(mutex_);
    reached_.wait(lock, [&] { return completed_ >= generation; });
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable reached_;
  uint64_t issued_ = 0;
  uint64_t completed_ = 0;
};

class CpuStream final : public Stream {
 public:
  void Launch(std::function<void()> work) override { work(); }

  void Wait(Event& event) override {
    auto* cpu_event = dynamic_cast<CpuEvent*>(&event);
    if (cpu_event == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, "cpu stream: can only wait on events created by the cpu device");
    }
    // Captured now: the stream waits for the records issued before this call,
    // not for later ones (the CUDA/ACL rule).
    uint64_t generation = cpu_event->IssuedGeneration();
    Launch([cpu_event, generation] { cpu_event->WaitFor(generation); });
  }

  void Synchronize() override {}  // inline work has finished when Launch returns
};

class CpuDeviceImpl final : public Device {
 public:
  CpuDeviceImpl() { cpu::RegisterCpuKernels(kernels_); }

  std::string name() const override { return "cpu"; }
  bool host_memory() const override { return true; }
  Allocator& allocator() override { return allocator_; }
  std::unique_ptr<Stream> CreateStream() override { return std::make_unique<CpuStream>(); }
  std::unique_ptr<Event> CreateEvent() override { return std::make_unique<CpuEvent>(); }

  void CopyToDevice(void* dst, const void* src, size_t bytes, Stream& stream) override {
    stream.Launch([=] { std::memcpy(dst, src, bytes); });
  }
  void CopyToHost(void* dst, const void* src, size_t bytes, Stream& stream) override {
    stream.Launch([=] { std::memcpy(dst, src, bytes); });
  }

  const KernelRegistry& kernels() const override { return kernels_; }
  std::vector<std::unique_ptr<Pass>> RewritePasses() const override { return cpu::CpuRewritePasses(); }
  std::optional<PackedWeight> PackForEveryShape(const Value& weight) const override {
    return cpu::PackProductWeight(weight);
  }
  void AddKernel(KernelDef def) { kernels_.Register(std::move(def)); }

 private:
  CpuAllocator allocator_;
  KernelRegistry kernels_;
};

}  // namespace

Device& CpuDevice() {
  static CpuDeviceImpl device;  // thread-safe one-time construction
  return device;
}

void RegisterCpuKernel(KernelDef def) { static_cast<CpuDeviceImpl&>(CpuDevice()).AddKernel(std::move(def)); }

}  // namespace ge::device
