// Process and device set-up of the ACL runtime.
//
// aclInit may run once per process and aclFinalize ends ACL for good, so
// AclProcessRef counts the devices alive: the first one initializes ACL, the
// last one finalizes it. (The real CANN runtime refuses a second aclInit after
// aclFinalize in some releases: a process that creates a device again after
// destroying the last one should keep one device alive.)
#pragma once

#include <cstdint>
#include <string>

#include <acl/acl.h>

namespace ge::device::acl {

class AclProcessRef {
 public:
  AclProcessRef();
  ~AclProcessRef();
  AclProcessRef(const AclProcessRef&) = delete;
  AclProcessRef& operator=(const AclProcessRef&) = delete;
};

// One device opened (aclrtSetDevice) with a context of its own; reset and
// destroyed at the end. ACL keeps a current context per thread, so every entry
// point of the backend makes the device's context current first: the runtime
// may drive one device from several threads.
class AclDeviceContext {
 public:
  explicit AclDeviceContext(int32_t device_id);
  ~AclDeviceContext();
  AclDeviceContext(const AclDeviceContext&) = delete;
  AclDeviceContext& operator=(const AclDeviceContext&) = delete;

  int32_t device_id() const { return device_id_; }
  // "ascend:<id>", the device name in messages.
  const std::string& name() const { return name_; }
  // Makes the context current on the calling thread.
  void MakeCurrent() const;
  // The same for destructors, which cannot report a failure.
  void MakeCurrentForTeardown() const noexcept;

 private:
  AclProcessRef process_;
  int32_t device_id_;
  std::string name_;
  aclrtContext context_ = nullptr;
};

}  // namespace ge::device::acl
