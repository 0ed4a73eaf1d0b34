// Test hooks of the host ACL emulator: inject failures into the ACL calls and
// inspect what is live, so that tests of the Ascend backend can prove that
// every failure surfaces as a clean ge::Error and that nothing leaks.
// Only the emulator build has these (they are not part of ACL).
#pragma once

#include <cstddef>
#include <string>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

namespace ge::acl_emulator {

// The n_th aclrtMalloc from now (1: the next one) fails with ACL_ERROR_BAD_ALLOC;
// n_th <= 0 cancels a pending failure. aclrtMallocHost is not affected.
void FailNextMalloc(int n_th);
// The next aclopExecuteV2 / aclopCompileAndExecute of `op_type` (nullptr: of
// any type) fails at launch with ACL_ERROR_INTERNAL_ERROR.
void FailNextOp(const char* op_type);
// Every piece of work queued on `stream` from now on fails instead of running;
// the stream's next aclrtSynchronizeStream returns ACL_ERROR_RT_FAILURE.
// Event records and waits still run, so nothing waiting on the stream hangs.
void FailStream(aclrtStream stream);

size_t LiveDeviceAllocations();
size_t LiveHostAllocations();
size_t LiveStreams();
size_t LiveEvents();
// Ops compiled and cached by (op type, descriptors, attributes).
size_t CachedOps();
// The value aclSetCompileopt last stored for `option`, or "" when none.
std::string CompileOption(aclCompileOpt option);

// Clears every injected fault, the compile options and the op cache, and
// releases everything still live (as aclFinalize does); the emulator is left
// uninitialised.
void Reset();

}  // namespace ge::acl_emulator
