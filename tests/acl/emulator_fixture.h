// Helpers of the ACL emulator tests: a session that leaves the emulator as it
// found it, and device tensors that free themselves.
#pragma once

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "device/acl/emulator/fault_injection.h"

namespace ge::test {

// aclInit + aclrtSetDevice(0) for one test; everything is released after it.
struct EmulatorSession {
  EmulatorSession() {
    acl_emulator::Reset();
    REQUIRE(aclInit(nullptr) == ACL_SUCCESS);
    REQUIRE(aclrtSetDevice(0) == ACL_SUCCESS);
  }
  ~EmulatorSession() { acl_emulator::Reset(); }
  EmulatorSession(const EmulatorSession&) = delete;
  EmulatorSession& operator=(const EmulatorSession&) = delete;
};

// This thread's most recent ACL error message, or "".
inline std::string RecentError() {
  const char* message = aclGetRecentErrMsg();
  return message ? message : "";
}

// A float32 tensor in device memory with its descriptor and data buffer.
class DeviceTensor {
 public:
  DeviceTensor(std::vector<int64_t> dims, const std::vector<float>& values, aclFormat format = ACL_FORMAT_ND)
      : count_(Count(dims)) {
    REQUIRE(aclrtMalloc(&device_, bytes(), ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);  // EmulatorSession frees it
    if (!values.empty()) {
      REQUIRE(values.size() == count_);
      const aclError copied = aclrtMemcpy(device_, bytes(), values.data(), bytes(), ACL_MEMCPY_HOST_TO_DEVICE);
      INFO(RecentError());
      REQUIRE(copied == ACL_SUCCESS);
    }
    // Created last: nothing can fail after them, so the destructor always releases them.
    desc_ = aclCreateTensorDesc(ACL_FLOAT, static_cast<int>(dims.size()), dims.data(), format);
    buffer_ = aclCreateDataBuffer(device_, bytes());
  }
  ~DeviceTensor() {
    aclDestroyDataBuffer(buffer_);
    aclDestroyTensorDesc(desc_);
    aclrtFree(device_);
  }
  DeviceTensor(const DeviceTensor&) = delete;
  DeviceTensor& operator=(const DeviceTensor&) = delete;

  size_t bytes() const { return count_ * sizeof(float); }
  void* device() const { return device_; }
  aclTensorDesc* desc() const { return desc_; }
  aclDataBuffer* buffer() const { return buffer_; }
  std::vector<float> Read() const {
    std::vector<float> host(count_);
    REQUIRE(aclrtMemcpy(host.data(), bytes(), device_, bytes(), ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    return host;
  }

 private:
  static size_t Count(const std::vector<int64_t>& dims) {
    size_t count = 1;
    for (int64_t dim : dims) count *= static_cast<size_t>(dim);
    return count;
  }
  size_t count_;
  void* device_ = nullptr;
  aclTensorDesc* desc_ = nullptr;
  aclDataBuffer* buffer_ = nullptr;
};

}  // namespace ge::test
