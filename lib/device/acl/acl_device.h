// The Ascend device: device::Device over the ACL runtime (a real CANN
// toolkit, or ge's host emulator when built without GE_ACL_ROOT).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <acl/acl.h>

#include "device/device.h"

namespace ge::device {

// ACL's op compilation options, handed to aclSetCompileopt when a device is
// created; empty ones are left at ACL's defaults. ACL keeps them per process:
// the device created last decides the options of every later op compilation.
struct AclCompileOptions {
  // ACL_PRECISION_MODE (force_fp32, allow_fp32_to_fp16, must_keep_origin_dtype, ...), or with precision_mode_v2
  // ACL_PRECISION_MODE_V2 (fp16, origin, mixed_float16, ...).
  std::string precision_mode;
  bool precision_mode_v2 = false;
  std::string op_select_implmode;       // ACL_OP_SELECT_IMPL_MODE: high_precision or high_performance
  std::string optypelist_for_implmode;  // ACL_OPTYPELIST_FOR_IMPLMODE: op types the mode applies to, comma-separated
  std::string op_precision_mode;        // ACL_OP_PRECISION_MODE: path of an op precision .ini file
};

// Opens ACL device `device_id` (initializing ACL on the first device of the
// process, finalizing it with the last one) with a context of its own. Its
// allocator takes device memory with aclrtMalloc under `malloc_policy`. Its
// kernels are acl::AclKernels() (acl_kernels.h): the op types of ge's op
// schema registry as of this call, less those the runtime handles itself
// (graph sources, control flow), for the dtypes their schemas allow, each run
// through the ACL op library (acl::AclOpKernel); an op the library cannot run
// fails when its kernel first executes. Streams, events and kernels it
// creates must be destroyed before it. Throws ge::Error naming the ACL call
// and ACL's message when the device cannot be opened.
std::unique_ptr<Device> CreateAclDevice(int32_t device_id, const AclCompileOptions& options = {},
                                        aclrtMemMallocPolicy malloc_policy = ACL_MEM_MALLOC_HUGE_FIRST);

}  // namespace ge::device
