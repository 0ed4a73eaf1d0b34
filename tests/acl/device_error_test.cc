// ACL failures surface as ge::Error naming the node and carrying ACL's
// message, and leave no device memory behind.
#include <vector>

#include <catch2/catch.hpp>

#include "device/acl/acl_op_kernel.h"
#include "device/acl/acl_stream.h"
#include "device/acl/emulator/fault_injection.h"
#include "device_support.h"
#include "ge/builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

struct ReluCase {
  std::unique_ptr<Graph> graph;
  Tensor input = Tensor::FromVector<float>(DataType::kFloat, {4}, {-1, 2, -3, 4});
  ReluCase() {
    GraphBuilder b("faults");
    b.Output(b.Relu(b.Input("x", DataType::kFloat, {4}), "faulty_relu"));
    graph = b.Build();
  }
  const Node& node() const { return *graph->FindNode("faulty_relu"); }
};

TEST_CASE("ACL op the emulator lacks gives kUnsupported naming the node", "[acl]") {
  Graph graph("mystery");
  Value* x = graph.AddInput("x", DataType::kFloat, {4});
  Node* node = graph.AddNode("NoSuchAscendOp", "mystery_node", {x});
  node->output(0)->set_dtype(DataType::kFloat);
  node->output(0)->set_shape({4});
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> stream = device->CreateStream();
    device::acl::AclOpKernel kernel(*node);
    Tensor input(DataType::kFloat, {4}), output(DataType::kFloat, {4});
    DeviceBuffer in(*device, input.nbytes()), out(*device, output.nbytes());
    std::vector<device::TensorView> inputs{{input.dtype(), &input.shape(), in.data()}};
    std::vector<device::TensorView> outputs{{output.dtype(), &output.shape(), out.data()}};
    auto [code, message] = ErrorOf([&] {
      kernel.Run({inputs, outputs, nullptr, stream.get()});
      stream->Synchronize();
    });
    CHECK(code == ErrorCode::kUnsupported);
    CHECK_THAT(message, Catch::Contains("mystery_node") && Catch::Contains("aclopCompileAndExecute") &&
                            Catch::Contains("NoSuchAscendOp"));
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL malloc failure gives ge::Error with ACL's message and leaks nothing", "[acl]") {
  ReluCase relu;
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> stream = device->CreateStream();
    acl_emulator::FailNextMalloc(2);  // the output buffer of the run below
    auto [code, message] = ErrorOf([&] { RunOnDevice(*device, *stream, relu.node(), {relu.input}); });
    CHECK(code == ErrorCode::kInternal);
    CHECK_THAT(message, Catch::Contains("ascend:0 allocator, 16 bytes") && Catch::Contains("aclrtMalloc") &&
                            Catch::Contains(std::to_string(ACL_ERROR_BAD_ALLOC)) &&
                            Catch::Contains("out of device memory"));  // the emulator's own message
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL op failure gives ge::Error naming the node and leaks nothing", "[acl]") {
  ReluCase relu;
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> stream = device->CreateStream();
    acl_emulator::FailNextOp("Relu");
    auto [code, message] = ErrorOf([&] { RunOnDevice(*device, *stream, relu.node(), {relu.input}); });
    CHECK(code == ErrorCode::kInternal);
    CHECK_THAT(message, Catch::Contains("faulty_relu") && Catch::Contains("aclopCompileAndExecute") &&
                            Catch::Contains(std::to_string(ACL_ERROR_INTERNAL_ERROR)) &&
                            Catch::Contains("failed to launch"));
    // The fault was used up: the next run succeeds.
    std::vector<Tensor> outputs = RunOnDevice(*device, *stream, relu.node(), {relu.input});
    CHECK(std::vector<float>(outputs[0].data_as<float>(), outputs[0].data_as<float>() + 4) ==
          std::vector<float>{0, 2, 0, 4});
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL stream failure gives ge::Error at synchronization and leaks nothing", "[acl]") {
  ReluCase relu;
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> stream = device->CreateStream();
    acl_emulator::FailStream(static_cast<device::acl::AclStream&>(*stream).Bind());
    auto [code, message] = ErrorOf([&] { RunOnDevice(*device, *stream, relu.node(), {relu.input}); });
    CHECK(code == ErrorCode::kInternal);
    CHECK_THAT(message, Catch::Contains("ascend:0") && Catch::Contains("aclrtSynchronizeStream") &&
                            Catch::Contains(std::to_string(ACL_ERROR_RT_FAILURE)) &&
                            Catch::Contains("work queued on stream"));
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
  CHECK(acl_emulator::LiveStreams() == 0);
}

}  // namespace
}  // namespace ge::test
