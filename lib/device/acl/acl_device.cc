#include "device/acl/acl_device.h"

#include <algorithm>
#include <cstdint>

#include <acl/acl_op_compiler.h>
#include <fmt/core.h>

#include "device/acl/acl_context.h"
#include "device/acl/acl_error.h"
#include "device/acl/acl_kernels.h"
#include "device/acl/acl_stream.h"
#include "ge/error.h"

namespace ge::device {

namespace {

using acl::AclDeviceContext;
using acl::CheckAcl;

class AclAllocator final : public Allocator {
 public:
  AclAllocator(const AclDeviceContext& context, aclrtMemMallocPolicy policy) : context_(context), policy_(policy) {}

  void* Allocate(size_t bytes, size_t alignment) override {
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{} allocator: alignment {} is not a power of two", context_.name(), alignment));
    }
    context_.MakeCurrent();
    void* ptr = nullptr;
    // ACL refuses empty allocations; a zero-byte tensor still needs an address.
    CheckAcl(aclrtMalloc(&ptr, std::max<size_t>(bytes, 1), policy_), "aclrtMalloc",
             fmt::format("{} allocator, {} bytes", context_.name(), bytes));
    if (reinterpret_cast<uintptr_t>(ptr) % alignment != 0) {
      (void)aclrtFree(ptr);
      throw Error(ErrorCode::kUnsupported, fmt::format("{} allocator: aclrtMalloc gives no {}-byte alignment",
                                                       context_.name(), alignment));
    }
    return ptr;
  }

  void Free(void* ptr) override {
    if (ptr == nullptr) return;
    context_.MakeCurrent();
    CheckAcl(aclrtFree(ptr), "aclrtFree", fmt::format("{} allocator", context_.name()));
  }

 private:
  const AclDeviceContext& context_;
  aclrtMemMallocPolicy policy_;
};

void SetCompileOptions(const AclCompileOptions& options, const std::string& device_name) {
  struct Setting {
    aclCompileOpt option;
    const char* name;
    const std::string& value;
  };
  const Setting settings[] = {
      {options.precision_mode_v2 ? ACL_PRECISION_MODE_V2 : ACL_PRECISION_MODE,
       options.precision_mode_v2 ? "ACL_PRECISION_MODE_V2" : "ACL_PRECISION_MODE", options.precision_mode},
      {ACL_OP_SELECT_IMPL_MODE, "ACL_OP_SELECT_IMPL_MODE", options.op_select_implmode},
      {ACL_OPTYPELIST_FOR_IMPLMODE, "ACL_OPTYPELIST_FOR_IMPLMODE", options.optypelist_for_implmode},
      {ACL_OP_PRECISION_MODE, "ACL_OP_PRECISION_MODE", options.op_precision_mode},
  };
  for (const Setting& setting : settings) {
    if (setting.value.empty()) continue;
    CheckAcl(aclSetCompileopt(setting.option, setting.value.c_str()), "aclSetCompileopt",
             fmt::format("{} option {}='{}'", device_name, setting.name, setting.value));
  }
}

class AclDevice final : public Device {
 public:
  AclDevice(int32_t device_id, const AclCompileOptions& options, aclrtMemMallocPolicy malloc_policy)
      : context_(device_id), allocator_(context_, malloc_policy), kernels_(acl::AclKernels()) {
    SetCompileOptions(options, context_.name());
  }

  std::string name() const override { return context_.name(); }
  bool host_memory() const override { return false; }
  Allocator& allocator() override { return allocator_; }
  std::unique_ptr<Stream> CreateStream() override { return std::make_unique<acl::AclStream>(context_); }
  std::unique_ptr<Event> CreateEvent() override { return std::make_unique<acl::AclEvent>(context_); }

  // Asynchronous on `stream`: the host buffer must stay unchanged (source) or
  // unread (destination) until the stream is synchronized.
  void CopyToDevice(void* dst, const void* src, size_t bytes, Stream& stream) override {
    Copy(dst, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE, stream, "host to device copy");
  }
  void CopyToHost(void* dst, const void* src, size_t bytes, Stream& stream) override {
    Copy(dst, src, bytes, ACL_MEMCPY_DEVICE_TO_HOST, stream, "device to host copy");
  }

  const KernelRegistry& kernels() const override { return kernels_; }

 private:
  void Copy(void* dst, const void* src, size_t bytes, aclrtMemcpyKind kind, Stream& stream, const char* what) {
    if (bytes == 0) return;  // ACL refuses empty copies; there is nothing to order either
    std::string context = fmt::format("{} {} of {} bytes", context_.name(), what, bytes);
    aclrtStream native = acl::AsAclStream(stream, context).Bind();
    CheckAcl(aclrtMemcpyAsync(dst, bytes, src, bytes, kind, native), "aclrtMemcpyAsync", context);
  }

  AclDeviceContext context_;  // first member: opened first, closed last
  AclAllocator allocator_;
  KernelRegistry kernels_;  // the schema op set as of the device's creation (acl_kernels.h)
};

}  // namespace

std::unique_ptr<Device> CreateAclDevice(int32_t device_id, const AclCompileOptions& options,
                                        aclrtMemMallocPolicy malloc_policy) {
  return std::make_unique<AclDevice>(device_id, options, malloc_policy);
}

}  // namespace ge::device
