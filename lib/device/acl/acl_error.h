// Turning ACL status codes into ge::Error.
//
// Every ACL call of the backend goes through CheckAcl, so a failure names the
// call, the status code, what ge was doing (node, op, device) and the message
// the ACL runtime recorded for this thread (aclGetRecentErrMsg).
#pragma once

#include <string>

#include <acl/acl.h>

namespace ge::device::acl {

// Throws ge::Error when `status` is not ACL_SUCCESS. `call` is the ACL
// function's name, `context` says what it was called for ("node 'conv1'
// (Conv2D)", "ascend:0 allocator", ...). The code: kUnsupported when the op
// library lacks the op or dtype, kInvalidArgument for a refused parameter,
// kInternal for every other device or runtime failure.
void CheckAcl(aclError status, const char* call, const std::string& context);

// For the ACL constructors that report failure by returning null
// (aclCreateTensorDesc, aclopCreateAttr, aclCreateDataBuffer): returns
// `handle`, or throws like CheckAcl when it is null.
// The throwing half of CheckAclCreated, kept out of line.
[[noreturn]] void ThrowAclCreateFailed(const char* call, const std::string& context);

template <typename Handle>
Handle* CheckAclCreated(Handle* handle, const char* call, const std::string& context) {
  if (handle == nullptr) ThrowAclCreateFailed(call, context);
  return handle;
}

}  // namespace ge::device::acl
