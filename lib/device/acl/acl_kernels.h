// The Ascend device's kernels, declared from the Ascend IR op set rather than
// from another device's list: ge's op schema registry (graph/op_schema.h),
// whose op types, ports and dtype constraints follow CANN's Ascend IR, less
// the op types ge's runtime handles itself and never hands to a kernel. Each
// kernel is an acl::AclOpKernel: aclopCompileAndExecute of the node's op type
// by the ACL op library.
#pragma once

#include <string_view>
#include <vector>

#include "device/kernel.h"
#include "ge/types.h"
#include "graph/op_schema.h"

namespace ge::device::acl {

// The schema op types the Ascend device declares no kernel for, because no
// node of these types ever reaches a device kernel (see acl_kernels.cc for
// why, per op type).
const std::vector<std::string_view>& HostHandledOpTypes();

// The dtypes `schema` allows where kernel selection reads a node's dtype
// (runtime::KernelSelectionDtype: input 0's, or output 0's when input 0 is
// absent): input 0's allowed dtypes, joined by output 0's when input 0 may be
// absent (optional, or dynamic with no minimum). A port with no type variable
// allows every dtype. Sorted by DataType value, without duplicates; empty for
// an op with neither input nor output.
std::vector<DataType> KernelSelectionDtypes(const OpSchema& schema);

// A kernel for every op type of `schemas` (OpRegistry::Global(): the built-in
// op set and any vendor ops registered so far) except HostHandledOpTypes(),
// for the dtypes KernelSelectionDtypes() gives. They offer no implementation
// modes: on ACL the mode is chosen per op type by the compile options
// (ACL_OP_SELECT_IMPL_MODE), not per node by ge.
//
// A declared kernel is a promise of ge's IR, not of the op library: whether
// ACL can run an (op type, dtype, attributes) is known only when the kernel
// first executes. An op it lacks fails that run with a ge::Error
// (kUnsupported) naming the node, aclopCompileAndExecute and ACL's error
// (ACL_ERROR_OP_NOT_FOUND from the emulator, whose op library is ge's CPU
// kernels; a few schema ops are ge's own, e.g. EyeLike and DFT, which CANN's
// library does not have).
KernelRegistry AclKernels(const OpRegistry& schemas = OpRegistry::Global());

}  // namespace ge::device::acl
