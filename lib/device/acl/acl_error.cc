#include "device/acl/acl_error.h"

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::device::acl {

namespace {

// ge has no device error code: the op library lacking an op or dtype is
// kUnsupported, a parameter ACL refuses kInvalidArgument, anything else a
// failure of the device or its runtime (kInternal).
ErrorCode CodeOf(aclError status) {
  if (status == ACL_ERROR_OP_NOT_FOUND || status == ACL_ERROR_OP_TYPE_NOT_MATCH ||
      status == ACL_ERROR_UNSUPPORTED_DATA_TYPE) {
    return ErrorCode::kUnsupported;
  }
  if (status == ACL_ERROR_INVALID_PARAM || status == ACL_ERROR_RT_PARAM_INVALID) return ErrorCode::kInvalidArgument;
  return ErrorCode::kInternal;
}

std::string RecentMessage() {
  const char* recent = aclGetRecentErrMsg();
  return recent != nullptr && recent[0] != '\0' ? recent : "no message from the ACL runtime";
}

}  // namespace

void CheckAcl(aclError status, const char* call, const std::string& context) {
  if (status == ACL_SUCCESS) return;
  throw Error(CodeOf(status),
              fmt::format("{}: {} failed with ACL error {}: {}", context, call, status, RecentMessage()));
}

void ThrowAclCreateFailed(const char* call, const std::string& context) {
  throw Error(ErrorCode::kInternal, fmt::format("{}: {} returned null: {}", context, call, RecentMessage()));
}

}  // namespace ge::device::acl
