// ACL streams and events: work on two streams ordered by an event.
#include <string>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "device/acl/emulator/fault_injection.h"
#include "device_support.h"
#include "ge/builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

device::TensorView View(const Tensor& tensor, void* data) { return {tensor.dtype(), &tensor.shape(), data}; }

TEST_CASE("ACL streams order work across streams with an event", "[acl]") {
  // relu = Relu(x) on stream A; sum = relu + y on stream B after A's event.
  // A repeats its Relu so that, were the wait missing, B's Add would run
  // while relu is still being written.
  const int64_t size = 1 << 18;
  const int relu_repeats = 16;
  GraphBuilder b("two_streams");
  Value* x = b.Input("x", DataType::kFloat, {size});
  Value* y = b.Input("y", DataType::kFloat, {size});
  b.Output(b.Add(b.Relu(x, "relu"), y, "sum"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = PseudoRandomTensor({size}, 11), ys = PseudoRandomTensor({size}, 12);
  Tensor relu_out(DataType::kFloat, {size}), result(DataType::kFloat, {size});

  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> a = device->CreateStream(), bstream = device->CreateStream();
    std::unique_ptr<device::Event> relu_done = device->CreateEvent();
    auto relu = device->kernels().Find("Relu", DataType::kFloat)->factory(*graph->FindNode("relu"));
    auto add = device->kernels().Find("Add", DataType::kFloat)->factory(*graph->FindNode("sum"));
    const size_t bytes = xs.nbytes();
    DeviceBuffer dx(*device, bytes), dy(*device, bytes), drelu(*device, bytes), dsum(*device, bytes);

    device->CopyToDevice(dx.data(), xs.data(), bytes, *a);
    device->CopyToDevice(dy.data(), ys.data(), bytes, *bstream);
    std::vector<device::TensorView> relu_in{View(xs, dx.data())}, relu_outs{View(relu_out, drelu.data())};
    for (int i = 0; i < relu_repeats; ++i) relu->Run({relu_in, relu_outs, nullptr, a.get()});
    relu_done->Record(*a);
    bstream->Wait(*relu_done);
    std::vector<device::TensorView> add_in{View(relu_out, drelu.data()), View(ys, dy.data())};
    std::vector<device::TensorView> add_out{View(result, dsum.data())};
    add->Run({add_in, add_out, nullptr, bstream.get()});
    device->CopyToHost(result.data(), dsum.data(), bytes, *bstream);
    bstream->Synchronize();
    relu_done->Synchronize();  // recorded and reached: returns at once
  }
  for (int64_t i = 0; i < size; ++i) {
    const float expected = std::max(xs.data_as<float>()[i], 0.0f) + ys.data_as<float>()[i];
    if (result.data_as<float>()[i] != expected) FAIL("element " << i << ": " << result.data_as<float>()[i]);
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
  CHECK(acl_emulator::LiveStreams() == 0);
  CHECK(acl_emulator::LiveEvents() == 0);
}

TEST_CASE("ACL stream Launch runs host work after the stream's device work", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  std::unique_ptr<device::Stream> stream = device->CreateStream();
  std::vector<float> source(1 << 16, 3.5f), back(source.size(), 0.0f);
  DeviceBuffer buffer(*device, source.size() * sizeof(float));
  device->CopyToDevice(buffer.data(), source.data(), source.size() * sizeof(float), *stream);
  device->CopyToHost(back.data(), buffer.data(), back.size() * sizeof(float), *stream);
  bool copied_before_work = false;
  stream->Launch([&] { copied_before_work = back == source; });
  CHECK(copied_before_work);
}

TEST_CASE("ACL device serves threads that did not create it", "[acl]") {
  // ACL's current context is per thread: the device makes its own current on
  // every call, so a fresh thread allocates, copies and runs ops.
  GraphBuilder b("threaded");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {3}), "relu"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = Tensor::FromVector<float>(DataType::kFloat, {3}, {-2, 0.5f, 3});
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  std::unique_ptr<device::Stream> stream = device->CreateStream();
  std::vector<Tensor> outputs;
  std::string error;
  std::thread worker([&] {
    try {
      outputs = RunOnDevice(*device, *stream, *graph->FindNode("relu"), {xs});
    } catch (const Error& e) {
      error = e.what();
    }
  });
  worker.join();
  REQUIRE(error.empty());
  CHECK(std::vector<float>(outputs[0].values<float>().begin(), outputs[0].values<float>().end()) ==
        std::vector<float>{0, 0.5f, 3});
}

TEST_CASE("ACL stream refuses events of another device", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  std::unique_ptr<device::Stream> stream = device->CreateStream();
  std::unique_ptr<device::Event> cpu_event = device::CpuDevice().CreateEvent();
  auto [code, message] = ErrorOf([&] { stream->Wait(*cpu_event); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ascend:0"));
}

}  // namespace
}  // namespace ge::test
