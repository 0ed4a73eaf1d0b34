#include "device/acl/acl_context.h"

#include <mutex>

#include <fmt/core.h>

#include "device/acl/acl_error.h"

namespace ge::device::acl {

namespace {

std::mutex process_mutex;
int process_users = 0;  // guarded by process_mutex

}  // namespace

AclProcessRef::AclProcessRef() {
  std::lock_guard lock(process_mutex);
  if (process_users == 0) CheckAcl(aclInit(nullptr), "aclInit", "ACL process initialization");
  ++process_users;
}

AclProcessRef::~AclProcessRef() {
  std::lock_guard lock(process_mutex);
  // A destructor cannot report a failed aclFinalize; ACL is unusable either way.
  if (--process_users == 0) (void)aclFinalize();
}

AclDeviceContext::AclDeviceContext(int32_t device_id)
    : device_id_(device_id), name_(fmt::format("ascend:{}", device_id)) {
  CheckAcl(aclrtSetDevice(device_id), "aclrtSetDevice", name_);
  aclError created = aclrtCreateContext(&context_, device_id);
  if (created != ACL_SUCCESS) {
    (void)aclrtResetDevice(device_id);
    CheckAcl(created, "aclrtCreateContext", name_);
  }
}

AclDeviceContext::~AclDeviceContext() {
  // Teardown failures cannot be reported from a destructor; the device is
  // released as far as ACL lets it be.
  (void)aclrtDestroyContext(context_);
  (void)aclrtResetDevice(device_id_);
}

void AclDeviceContext::MakeCurrent() const {
  CheckAcl(aclrtSetCurrentContext(context_), "aclrtSetCurrentContext", name_);
}

void AclDeviceContext::MakeCurrentForTeardown() const noexcept { (void)aclrtSetCurrentContext(context_); }

}  // namespace ge::device::acl
