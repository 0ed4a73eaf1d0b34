// The ACL device's identity, memory, copies and compile options, through the emulator.
#include <cstring>
#include <vector>

#include <catch2/catch.hpp>

#include "device/acl/emulator/fault_injection.h"
#include "device_support.h"
#include "test_support.h"

namespace ge::test {
namespace {

TEST_CASE("ACL device names itself and holds memory of its own", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(1);
  CHECK(device->name() == "ascend:1");
  CHECK_FALSE(device->host_memory());
}

TEST_CASE("ACL stays initialized while any device lives and is finalized with the last", "[acl]") {
  std::unique_ptr<device::Device> first = device::CreateAclDevice(0);
  std::unique_ptr<device::Device> second = device::CreateAclDevice(1);
  first.reset();
  {
    DeviceBuffer buffer(*second, 64);  // ACL still initialized: aclrtMalloc succeeds
    CHECK(acl_emulator::LiveDeviceAllocations() == 1);
  }
  second.reset();
  CHECK(aclrtSetDevice(0) == ACL_ERROR_UNINITIALIZE);
  // And a later device initializes ACL again.
  CHECK(device::CreateAclDevice(0)->name() == "ascend:0");
}

TEST_CASE("ACL device memory round trip through CopyToDevice and CopyToHost", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  std::unique_ptr<device::Stream> stream = device->CreateStream();
  std::vector<int32_t> source(1000);
  for (size_t i = 0; i < source.size(); ++i) source[i] = static_cast<int32_t>(i * 7919 % 1000003);
  std::vector<int32_t> back(source.size(), -1);
  const size_t bytes = source.size() * sizeof(int32_t);
  {
    DeviceBuffer first(*device, bytes);
    DeviceBuffer second(*device, bytes);
    CHECK(reinterpret_cast<uintptr_t>(first.data()) % Tensor::kAlignment == 0);
    CHECK(acl_emulator::LiveDeviceAllocations() == 2);
    device->CopyToDevice(first.data(), source.data(), bytes, *stream);
    // Device to device through the host and back: each copy ordered on the stream.
    std::vector<int32_t> staging(source.size());
    device->CopyToHost(staging.data(), first.data(), bytes, *stream);
    stream->Synchronize();
    device->CopyToDevice(second.data(), staging.data(), bytes, *stream);
    device->CopyToHost(back.data(), second.data(), bytes, *stream);
    stream->Synchronize();
  }
  CHECK(back == source);
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL allocator refuses an alignment that is not a power of two", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  auto [code, message] = ErrorOf([&] { device->allocator().Allocate(16, 48); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ascend:0") && Catch::Contains("48"));
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL allocator gives zero-byte tensors an address", "[acl]") {
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  DeviceBuffer empty(*device, 0);
  CHECK(empty.data() != nullptr);
}

TEST_CASE("ACL compile options reach aclSetCompileopt and empty ones are skipped", "[acl]") {
  device::AclCompileOptions options;
  options.precision_mode = "force_fp32";
  options.op_select_implmode = "high_precision";
  options.optypelist_for_implmode = "Gelu,SoftmaxV2";
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0, options);
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE) == "force_fp32");
  CHECK(acl_emulator::CompileOption(ACL_OP_SELECT_IMPL_MODE) == "high_precision");
  CHECK(acl_emulator::CompileOption(ACL_OPTYPELIST_FOR_IMPLMODE) == "Gelu,SoftmaxV2");
  CHECK(acl_emulator::CompileOption(ACL_OP_PRECISION_MODE).empty());
}

TEST_CASE("ACL precision_mode_v2 sends the precision mode to ACL_PRECISION_MODE_V2", "[acl]") {
  device::AclCompileOptions options;
  options.precision_mode = "mixed_float16";
  options.precision_mode_v2 = true;
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0, options);
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE_V2) == "mixed_float16");
  CHECK(acl_emulator::CompileOption(ACL_PRECISION_MODE).empty());
}

TEST_CASE("ACL compile option ACL refuses names the option and leaks nothing", "[acl]") {
  device::AclCompileOptions options;
  options.op_select_implmode = "fastest";
  auto [code, message] = ErrorOf([&] { device::CreateAclDevice(0, options); });
  CHECK(code == ErrorCode::kInvalidArgument);
  CHECK_THAT(message, Catch::Contains("ACL_OP_SELECT_IMPL_MODE='fastest'") && Catch::Contains("aclSetCompileopt") &&
                          Catch::Contains("high_precision"));  // the emulator's list of valid values
  CHECK(acl_emulator::LiveStreams() == 0);
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("ACL device creation failure names the call and the device", "[acl]") {
  auto [code, message] = ErrorOf([] { device::CreateAclDevice(57); });
  CHECK(code != ErrorCode::kOk);
  CHECK_THAT(message, Catch::Contains("ascend:57") && Catch::Contains("aclrtSetDevice"));
  // A failed creation releases ACL again: a later device opens normally.
  CHECK(device::CreateAclDevice(0)->name() == "ascend:0");
}

}  // namespace
}  // namespace ge::test
