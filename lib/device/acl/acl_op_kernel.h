// A node executed by the ACL runtime: aclopCompileAndExecute of its Ascend IR
// op type, with tensor descriptors and attributes built once from the node.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include <acl/acl.h>
#include <acl/acl_op_compiler.h>

#include "device/kernel.h"

namespace ge::device::acl {

struct TensorDescDeleter {
  void operator()(aclTensorDesc* desc) const { aclDestroyTensorDesc(desc); }
};
struct OpAttrDeleter {
  void operator()(aclopAttr* attr) const { aclopDestroyAttr(attr); }
};
using TensorDescPtr = std::unique_ptr<aclTensorDesc, TensorDescDeleter>;
using OpAttrPtr = std::unique_ptr<aclopAttr, OpAttrDeleter>;

// One aclTensorDesc per input and output. The dtype is a cast (ge's DataType
// numbering is aclDataType's); the format is the node's data_format attribute
// for tensors of that format's rank (NCHW for 4-D tensors of a Conv2D, but
// ND for its 1-D bias), ND otherwise. An absent optional input gets the
// descriptor CANN documents for it: ACL_DT_UNDEFINED, no dims,
// ACL_FORMAT_UNDEFINED, and at run time a null data buffer of size 0.
//
// Every attribute goes to the aclopAttr with its type (int, float, bool,
// string, int list, float list, string list, dtype) except ge's own
// bookkeeping, whose names start with '_'. Tensor and subgraph attributes have
// no ACL form: the kernel refuses such nodes (kUnsupported naming the node).
//
// The op is compiled by ACL on first execution (ACL_COMPILE_SYS, the built-in
// operator library) and runs asynchronously on the context's stream, which
// must be an AclStream; the buffers in the context are device memory.
class AclOpKernel final : public Kernel {
 public:
  explicit AclOpKernel(const Node& node);
  void Run(const KernelContext& ctx) const override;

 private:
  struct Port {
    TensorDescPtr desc;
    Shape shape;     // unused for an absent input
    size_t bytes = 0;
    bool present = true;
    // A small integer constant (a shape, axes, pads) handed to ACL's op
    // compiler as host data with aclSetTensorConst: CANN compiles such inputs
    // into the op. Kept here because ACL keeps the pointer.
    Tensor host_constant;
  };
  static Port MakePort(const Node& node, const Value* value, aclFormat data_format, size_t data_format_rank);
  void CheckViews(std::span<const TensorView> views, const std::vector<Port>& ports, const char* what) const;

  std::string op_type_;
  std::string label_;  // node.Describe(), for errors
  std::vector<Port> inputs_;
  std::vector<Port> outputs_;
  std::vector<const aclTensorDesc*> input_descs_;  // views of inputs_/outputs_ in the layout ACL takes
  std::vector<const aclTensorDesc*> output_descs_;
  OpAttrPtr attr_;
};

}  // namespace ge::device::acl
