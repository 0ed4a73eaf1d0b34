#include "device/acl/acl_stream.h"

#include <fmt/core.h>

#include "device/acl/acl_error.h"
#include "ge/error.h"

namespace ge::device::acl {

AclStream::AclStream(const AclDeviceContext& context) : context_(context) {
  context_.MakeCurrent();
  CheckAcl(aclrtCreateStream(&stream_), "aclrtCreateStream", context_.name());
}

AclStream::~AclStream() {
  // Pending work must finish before the stream goes; a failure here (a stream
  // in error state) cannot be reported from a destructor and was reported by
  // the call that caused it.
  context_.MakeCurrentForTeardown();
  (void)aclrtSynchronizeStream(stream_);
  (void)aclrtDestroyStream(stream_);
}

void AclStream::Launch(std::function<void()> work) {
  Synchronize();
  work();
}

void AclStream::Wait(Event& event) {
  auto* acl_event = dynamic_cast<AclEvent*>(&event);
  if (acl_event == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{} stream: can only wait on events created by an ACL device", context_.name()));
  }
  CheckAcl(aclrtStreamWaitEvent(Bind(), acl_event->handle()), "aclrtStreamWaitEvent", context_.name());
}

void AclStream::Synchronize() {
  CheckAcl(aclrtSynchronizeStream(Bind()), "aclrtSynchronizeStream", context_.name());
}

aclrtStream AclStream::Bind() const {
  context_.MakeCurrent();
  return stream_;
}

AclEvent::AclEvent(const AclDeviceContext& context) : context_(context) {
  context_.MakeCurrent();
  CheckAcl(aclrtCreateEvent(&event_), "aclrtCreateEvent", context_.name());
}

AclEvent::~AclEvent() {
  context_.MakeCurrentForTeardown();
  (void)aclrtDestroyEvent(event_);
}

void AclEvent::Record(Stream& stream) {
  aclrtStream native = AsAclStream(stream, context_.name() + " event").Bind();
  CheckAcl(aclrtRecordEvent(event_, native), "aclrtRecordEvent", context_.name());
}

void AclEvent::Synchronize() {
  context_.MakeCurrent();
  CheckAcl(aclrtSynchronizeEvent(event_), "aclrtSynchronizeEvent", context_.name());
}

AclStream& AsAclStream(Stream& stream, const std::string& user) {
  auto* acl_stream = dynamic_cast<AclStream*>(&stream);
  if (acl_stream == nullptr) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: the stream was not created by an ACL device", user));
  }
  return *acl_stream;
}

}  // namespace ge::device::acl
