// The CPU device itself: allocator, streams and events, copies, registry.
#include <atomic>
#include <chrono>
#include <functional>
#include <cstdint>
#include <cstring>
#include <thread>

#include <catch2/catch.hpp>

#include "device/device.h"
#include "ge/error.h"

using namespace ge;
using namespace ge::device;

TEST_CASE("cpu allocator returns aligned, writable blocks", "[device]") {
  Allocator& allocator = CpuDevice().allocator();
  for (size_t bytes : {1, 63, 64, 1000, 1 << 20}) {
    void* p = allocator.Allocate(bytes, 64);
    REQUIRE(p != nullptr);
    CHECK(reinterpret_cast<uintptr_t>(p) % 64 == 0);
    std::memset(p, 0xAB, bytes);
    allocator.Free(p);
  }
  void* p = allocator.Allocate(10, 256);
  CHECK(reinterpret_cast<uintptr_t>(p) % 256 == 0);
  allocator.Free(p);
  CHECK_THROWS_AS(allocator.Allocate(10, 96), Error);
}

TEST_CASE("cpu stream runs work in launch order and copies", "[device]") {
  Device& device = CpuDevice();
  CHECK(device.name() == "cpu");
  CHECK(device.host_memory());
  auto stream = device.CreateStream();
  std::vector<int> order;
  for (int i = 0; i < 5; ++i) stream->Launch([&order, i] { order.push_back(i); });
  stream->Synchronize();
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});

  float src[4] = {1, 2, 3, 4}, dev[4] = {}, back[4] = {};
  device.CopyToDevice(dev, src, sizeof src, *stream);
  device.CopyToHost(back, dev, sizeof dev, *stream);
  stream->Synchronize();
  CHECK(std::memcmp(src, back, sizeof src) == 0);
}

namespace {

// A stream that queues work until Synchronize(), standing in for an
// asynchronous worker stream.
class DeferredStream final : public Stream {
 public:
  void Launch(std::function<void()> work) override { queue_.push_back(std::move(work)); }
  void Wait(Event&) override {}
  void Synchronize() override {
    for (auto& work : queue_) work();
    queue_.clear();
  }

 private:
  std::vector<std::function<void()>> queue_;
};

}  // namespace

TEST_CASE("cpu event makes a stream wait for a record issued earlier", "[device]") {
  Device& device = CpuDevice();
  DeferredStream producer;
  auto consumer = device.CreateStream();
  auto event = device.CreateEvent();
  event->Synchronize();  // never recorded: nothing to wait for

  std::atomic<bool> produced{false};
  std::atomic<bool> consumed_after_produce{false};
  producer.Launch([&] { produced = true; });
  event->Record(producer);  // issued, not reached until producer.Synchronize()
  std::thread consumer_thread([&] {
    consumer->Wait(*event);  // blocks until the record is reached
    consumer->Launch([&] { consumed_after_produce = produced.load(); });
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(produced);
  producer.Synchronize();
  consumer_thread.join();
  CHECK(consumed_after_produce);
  event->Synchronize();
}

TEST_CASE("cpu kernel registry covers the op set and refuses duplicates", "[device]") {
  const KernelRegistry& registry = CpuDevice().kernels();
  for (const char* op : {"Identity", "Conv2D", "Conv2DTranspose", "MatMulV2", "BatchMatMulV2", "BatchNorm",
                         "LayerNorm", "Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Abs", "Neg",
                         "Reciprocal", "Gelu", "ClipByValue", "Add", "Sub", "Mul", "Div", "Pow", "Maximum", "Minimum",
                         "SoftmaxV2", "ReduceMeanD", "ReduceSumD", "ReduceMaxD", "ReduceMinD", "ReduceProdD",
                         "MaxPoolV3", "AvgPoolV2", "Flatten", "Reshape", "Squeeze", "Unsqueeze", "TransposeD",
                         "ConcatD", "SplitVD", "StridedSliceV2", "GatherV2D", "Shape", "Cast"}) {
    INFO(op);
    CHECK(registry.Supports(op));
    CHECK_FALSE(registry.All().empty());
  }
  CHECK(registry.Find("Add", DataType::kInt64) != nullptr);
  CHECK(registry.Find("Add", DataType::kBool) == nullptr);
  CHECK(registry.Find("Conv2D", DataType::kFloat)->impl_modes.front() == "high_precision");
  CHECK(registry.Find("NoSuchOp", DataType::kFloat) == nullptr);

  KernelRegistry local;
  auto factory = [](const Node&) -> std::unique_ptr<Kernel> { return nullptr; };
  local.Register({"Op", {DataType::kFloat, DataType::kInt32}, {}, factory});
  CHECK_THROWS_AS(local.Register({"Op", {DataType::kInt32}, {}, factory}), Error);
  local.Register({"Op", {DataType::kDouble}, {}, factory});
  CHECK(local.Find("Op", DataType::kDouble) != nullptr);
  CHECK(local.All().size() == 2);
  CHECK_THROWS_AS(local.Register({"Other", {DataType::kFloat}, {}, nullptr}), Error);
}
