#include "device/acl/acl_op_kernel.h"

#include <iterator>

#include <fmt/core.h>

#include "device/acl/acl_error.h"
#include "device/acl/acl_stream.h"
#include "ge/error.h"
#include "graph/conv_post_ops.h"

namespace ge::device::acl {

namespace {

struct DataBufferDeleter {
  void operator()(aclDataBuffer* buffer) const { (void)aclDestroyDataBuffer(buffer); }
};
using DataBufferPtr = std::unique_ptr<aclDataBuffer, DataBufferDeleter>;

struct NamedFormat {
  const char* name;
  aclFormat format;
  size_t rank;  // the rank of the tensors the format describes
};
constexpr NamedFormat kDataFormats[] = {
    {"NCHW", ACL_FORMAT_NCHW, 4},   {"NHWC", ACL_FORMAT_NHWC, 4},   {"HWCN", ACL_FORMAT_HWCN, 4},
    {"NCDHW", ACL_FORMAT_NCDHW, 5}, {"NDHWC", ACL_FORMAT_NDHWC, 5}, {"ND", ACL_FORMAT_ND, 0},
};

// The node's data_format attribute as an ACL format, or ND when it has none.
NamedFormat DataFormatOf(const Node& node) {
  const AttrValue* value = node.attrs().Find("data_format");
  if (value == nullptr) return kDataFormats[std::size(kDataFormats) - 1];
  if (TypeOf(*value) != AttrType::kString) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{}: attribute 'data_format' must be a string for the ACL device", node.Describe()));
  }
  const std::string& name = std::get<std::string>(*value);
  for (const NamedFormat& format : kDataFormats) {
    if (name == format.name) return format;
  }
  throw Error(ErrorCode::kUnsupported,
              fmt::format("{}: data_format '{}' has no ACL format; valid: NCHW, NHWC, HWCN, NCDHW, NDHWC, ND",
                          node.Describe(), name));
}

void SetAttr(aclopAttr* attr, const std::string& name, const AttrValue& value, const Node& node) {
  const char* key = name.c_str();
  const std::string context = fmt::format("{} attribute '{}'", node.Describe(), name);
  auto count = [&](size_t size) { return static_cast<int>(size); };
  switch (TypeOf(value)) {
    case AttrType::kInt:
      return CheckAcl(aclopSetAttrInt(attr, key, std::get<int64_t>(value)), "aclopSetAttrInt", context);
    case AttrType::kFloat:
      return CheckAcl(aclopSetAttrFloat(attr, key, std::get<float>(value)), "aclopSetAttrFloat", context);
    case AttrType::kBool:
      return CheckAcl(aclopSetAttrBool(attr, key, std::get<bool>(value) ? 1 : 0), "aclopSetAttrBool", context);
    case AttrType::kString:
      return CheckAcl(aclopSetAttrString(attr, key, std::get<std::string>(value).c_str()), "aclopSetAttrString",
                      context);
    case AttrType::kInts: {
      const auto& ints = std::get<std::vector<int64_t>>(value);
      return CheckAcl(aclopSetAttrListInt(attr, key, count(ints.size()), ints.data()), "aclopSetAttrListInt",
                      context);
    }
    case AttrType::kFloats: {
      const auto& floats = std::get<std::vector<float>>(value);
      return CheckAcl(aclopSetAttrListFloat(attr, key, count(floats.size()), floats.data()),
                      "aclopSetAttrListFloat", context);
    }
    case AttrType::kStrings: {
      const auto& strings = std::get<std::vector<std::string>>(value);
      std::vector<const char*> pointers;
      pointers.reserve(strings.size());
      for (const std::string& s : strings) pointers.push_back(s.c_str());
      return CheckAcl(aclopSetAttrListString(attr, key, count(pointers.size()), pointers.data()),
                      "aclopSetAttrListString", context);
    }
    case AttrType::kDataType:
      return CheckAcl(aclopSetAttrDataType(attr, key, static_cast<aclDataType>(std::get<DataType>(value))),
                      "aclopSetAttrDataType", context);
    case AttrType::kTensor:
    case AttrType::kGraph:
      break;
  }
  throw Error(ErrorCode::kUnsupported, fmt::format("{}: the ACL device cannot pass a {} attribute to an op",
                                                   context, AttrTypeName(TypeOf(value))));
}

OpAttrPtr MakeAttr(const Node& node) {
  OpAttrPtr attr(CheckAclCreated(aclopCreateAttr(), "aclopCreateAttr", node.Describe()));
  for (const auto& [name, value] : node.attrs().entries()) {
    if (name.starts_with(kFusedAttrPrefix)) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("{}: attribute '{}' holds ops the CPU fused into it (conv_post_op_fusion); the ACL "
                              "device cannot run them: compile the original graph for this device",
                              node.Describe(), name));
    }
    if (name.starts_with('_')) continue;  // ge's bookkeeping (impl mode, precision reasons), not op attributes
    SetAttr(attr.get(), name, value, node);
  }
  return attr;
}

// Integer constants up to this size are shape-like operands ACL wants on the
// host; weights stay device buffers.
constexpr int64_t kMaxHostConstantElements = 64;

}  // namespace

AclOpKernel::Port AclOpKernel::MakePort(const Node& node, const Value* value, aclFormat data_format,
                                        size_t data_format_rank) {
  Port port;
  if (value == nullptr) {
    port.present = false;
    port.desc.reset(CheckAclCreated(aclCreateTensorDesc(ACL_DT_UNDEFINED, 0, nullptr, ACL_FORMAT_UNDEFINED),
                                    "aclCreateTensorDesc", node.Describe()));
    return port;
  }
  const size_t element_bytes = DataTypeSize(value->dtype());
  if (element_bytes == 0) {
    throw Error(ErrorCode::kUnsupported, fmt::format("{}: value '{}' has dtype {}, which the ACL device cannot hold",
                                                     node.Describe(), value->name(), DataTypeName(value->dtype())));
  }
  if (!value->shape().IsStatic()) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: value '{}' has shape {}; the ACL device runs static shapes only", node.Describe(),
                            value->name(), value->shape().ToString()));
  }
  port.shape = value->shape();
  port.bytes = static_cast<size_t>(port.shape.NumElements()) * element_bytes;
  const std::vector<int64_t>& dims = port.shape.dims();
  aclFormat format = dims.size() == data_format_rank ? data_format : ACL_FORMAT_ND;
  port.desc.reset(CheckAclCreated(aclCreateTensorDesc(static_cast<aclDataType>(value->dtype()),
                                                      static_cast<int>(dims.size()), dims.data(), format),
                                  "aclCreateTensorDesc", fmt::format("{} value '{}'", node.Describe(), value->name())));
  const Tensor* constant = value->constant();
  const bool index_like = value->dtype() == DataType::kInt32 || value->dtype() == DataType::kInt64;
  if (constant != nullptr && index_like && constant->num_elements() <= kMaxHostConstantElements) {
    port.host_constant = *constant;
    CheckAcl(aclSetTensorConst(port.desc.get(), port.host_constant.data(), port.bytes), "aclSetTensorConst",
             fmt::format("{} value '{}'", node.Describe(), value->name()));
  }
  return port;
}

AclOpKernel::AclOpKernel(const Node& node) : op_type_(node.op_type()), label_(node.Describe()) {
  const NamedFormat data_format = DataFormatOf(node);
  for (const Value* input : node.inputs()) {
    inputs_.push_back(MakePort(node, input, data_format.format, data_format.rank));
    input_descs_.push_back(inputs_.back().desc.get());
  }
  for (const Value* output : node.outputs()) {
    outputs_.push_back(MakePort(node, output, data_format.format, data_format.rank));
    output_descs_.push_back(outputs_.back().desc.get());
  }
  attr_ = MakeAttr(node);
}

void AclOpKernel::CheckViews(std::span<const TensorView> views, const std::vector<Port>& ports,
                             const char* what) const {
  if (views.size() != ports.size()) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: the ACL kernel was created for {} {}, run with {}", label_,
                                                  ports.size(), what, views.size()));
  }
  for (size_t i = 0; i < ports.size(); ++i) {
    if (!ports[i].present) continue;
    if (views[i].shape == nullptr || *views[i].shape != ports[i].shape) {
      throw Error(ErrorCode::kInternal,
                  fmt::format("{}: the ACL kernel was created for {} {} of shape {}, run with {}", label_, what, i,
                              ports[i].shape.ToString(), views[i].shape ? views[i].shape->ToString() : "none"));
    }
  }
}

void AclOpKernel::Run(const KernelContext& ctx) const {
  if (ctx.stream == nullptr) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: the ACL kernel needs a stream", label_));
  }
  aclrtStream stream = AsAclStream(*ctx.stream, label_).Bind();
  CheckViews(ctx.inputs, inputs_, "inputs");
  CheckViews(ctx.outputs, outputs_, "outputs");

  // Data buffers only describe device memory; ACL copies what it needs when
  // the op is queued, so they are destroyed when the call returns.
  auto buffers_of = [&](std::span<const TensorView> views, const std::vector<Port>& ports) {
    std::vector<DataBufferPtr> buffers;
    buffers.reserve(ports.size());
    for (size_t i = 0; i < ports.size(); ++i) {
      void* data = ports[i].present ? views[i].data : nullptr;
      buffers.emplace_back(CheckAclCreated(aclCreateDataBuffer(data, ports[i].bytes), "aclCreateDataBuffer", label_));
    }
    return buffers;
  };
  std::vector<DataBufferPtr> input_buffers = buffers_of(ctx.inputs, inputs_);
  std::vector<DataBufferPtr> output_buffers = buffers_of(ctx.outputs, outputs_);
  std::vector<const aclDataBuffer*> inputs;
  for (const DataBufferPtr& buffer : input_buffers) inputs.push_back(buffer.get());
  std::vector<aclDataBuffer*> outputs;
  for (const DataBufferPtr& buffer : output_buffers) outputs.push_back(buffer.get());

  CheckAcl(aclopCompileAndExecute(op_type_.c_str(), static_cast<int>(inputs.size()), input_descs_.data(),
                                  inputs.data(), static_cast<int>(outputs.size()), output_descs_.data(),
                                  outputs.data(), attr_.get(), ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr, stream),
           "aclopCompileAndExecute", label_);
}

}  // namespace ge::device::acl
