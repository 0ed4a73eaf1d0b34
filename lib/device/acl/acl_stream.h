// Streams and events of the ACL device: aclrtStream and aclrtEvent.
//
// Both keep a reference to their device's context and must be destroyed
// before the device that created them.
#pragma once

#include <functional>
#include <string>

#include <acl/acl.h>

#include "device/acl/acl_context.h"
#include "device/device.h"

namespace ge::device::acl {

class AclStream final : public Stream {
 public:
  explicit AclStream(const AclDeviceContext& context);
  ~AclStream() override;
  AclStream(const AclStream&) = delete;
  AclStream& operator=(const AclStream&) = delete;

  // Host work has no place on an ACL stream: Launch waits for everything
  // launched on the stream so far (aclrtSynchronizeStream), then runs `work`
  // on the calling thread before returning. Work launched later therefore
  // follows it, as the Stream contract requires, at the price of blocking the
  // host. The runtime should keep host steps off the hot path of ACL streams.
  void Launch(std::function<void()> work) override;
  // aclrtStreamWaitEvent; `event` must come from an ACL device.
  void Wait(Event& event) override;
  void Synchronize() override;

  // The ACL stream, after making the device's context current on this thread.
  aclrtStream Bind() const;
  const AclDeviceContext& context() const { return context_; }

 private:
  const AclDeviceContext& context_;
  aclrtStream stream_ = nullptr;
};

class AclEvent final : public Event {
 public:
  explicit AclEvent(const AclDeviceContext& context);
  ~AclEvent() override;
  AclEvent(const AclEvent&) = delete;
  AclEvent& operator=(const AclEvent&) = delete;

  void Record(Stream& stream) override;  // aclrtRecordEvent; `stream` must be an AclStream
  void Synchronize() override;           // aclrtSynchronizeEvent

  aclrtEvent handle() const { return event_; }

 private:
  const AclDeviceContext& context_;
  aclrtEvent event_ = nullptr;
};

// The AclStream behind `stream`; throws kInvalidArgument naming `user` when
// the stream comes from another device.
AclStream& AsAclStream(Stream& stream, const std::string& user);

}  // namespace ge::device::acl
