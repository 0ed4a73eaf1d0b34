// The host table a plugin registers through (include/ge_c/ge_plugin.h): custom
// op schemas go into ge::OpRegistry::Global(), CPU kernels into the CPU
// device's registry, passes into every compile's pass pipeline. The plugin's
// C callbacks are wrapped into an inference function, a device::Kernel and a
// Pass that turn a nonzero return into a ge::Error naming the node and the
// plugin's message.
#include <fmt/core.h>

#include <cstddef>
#include <string>
#include <vector>

#include "device/device.h"
#include "ge/error.h"
#include "ge/types.h"
#include "ge_c/ge_plugin.h"
#include "graph/op_schema.h"
#include "passes/extra_passes.h"
#include "runtime/plugin/plugin_host.h"

namespace {

thread_local std::string plugin_error;

// The C handles are the C++ objects themselves; the C types stay incomplete.
const ge_plugin_attrs* ToC(const ge::AttrMap& attrs) { return reinterpret_cast<const ge_plugin_attrs*>(&attrs); }
const ge::AttrMap& FromC(const ge_plugin_attrs* attrs) { return *reinterpret_cast<const ge::AttrMap*>(attrs); }

struct InferState {
  ge::InferContext& context;
};
struct KernelState {
  const ge::device::KernelContext& context;
  const ge::AttrMap& attrs;
};
InferState& FromC(const ge_plugin_infer_context* c) {
  return *reinterpret_cast<InferState*>(const_cast<ge_plugin_infer_context*>(c));
}
const KernelState& FromC(const ge_plugin_kernel_context* c) { return *reinterpret_cast<const KernelState*>(c); }

// The plugin's message for a failed callback, or a stand-in when it set none.
std::string TakePluginError() {
  std::string message = plugin_error.empty() ? "the plugin reported a failure without a message" : plugin_error;
  plugin_error.clear();
  return message;
}

ge_status RecordFailure(ge_status status, const std::string& message) {
  plugin_error = message;
  return status;
}

// ge_status numbers its members as ge::ErrorCode does (include/ge_c/ge_c.h).
static_assert(GE_INVALID_ARGUMENT == static_cast<int>(ge::ErrorCode::kInvalidArgument) &&
              GE_INVALID_MODEL == static_cast<int>(ge::ErrorCode::kInvalidModel) &&
              GE_UNSUPPORTED == static_cast<int>(ge::ErrorCode::kUnsupported) &&
              GE_NOT_FOUND == static_cast<int>(ge::ErrorCode::kNotFound) &&
              GE_IO_ERROR == static_cast<int>(ge::ErrorCode::kIoError) &&
              GE_INTERNAL == static_cast<int>(ge::ErrorCode::kInternal));
ge_status StatusOf(ge::ErrorCode code) { return static_cast<ge_status>(code); }

// Arguments a plugin passes to the host.
void RequireArgument(const void* pointer, const char* argument) {
  if (pointer == nullptr) {
    throw ge::Error(ge::ErrorCode::kInvalidArgument, fmt::format("argument '{}' is NULL", argument));
  }
}
std::string RequireString(const char* text, const char* argument) {
  RequireArgument(text, argument);
  return text;
}
// ge_dtype numbers its members as ge::DataType does; the plugin ABI has no
// string or complex types.
ge::DataType DataTypeOf(ge_dtype dtype) {
  const auto type = static_cast<ge::DataType>(dtype);
  const bool in_plugin_abi = type != ge::DataType::kString && type != ge::DataType::kComplex64 &&
                             type != ge::DataType::kComplex128 && ge::DataTypeName(type) != "undefined";
  if (!in_plugin_abi) {
    throw ge::Error(ge::ErrorCode::kInvalidArgument,
                    fmt::format("dtype {} is not a ge_dtype value", static_cast<int>(dtype)));
  }
  return type;
}
ge::Shape ShapeOf(const int64_t* dims, size_t rank) {
  if (rank > 0) RequireArgument(dims, "dims");
  return ge::Shape(std::vector<int64_t>(dims, dims + rank));
}

// Runs the body of a host function; failures become a status and the plugin
// error (which ge_plugin_load or the failing callback's caller reports).
template <typename Body>
ge_status GuardPluginCall(Body&& body) noexcept {
  try {
    body();
    return GE_OK;
  } catch (const ge::Error& e) {
    return RecordFailure(StatusOf(e.code()), e.what());
  } catch (const std::exception& e) {
    return RecordFailure(GE_INTERNAL, e.what());
  } catch (...) {
    return RecordFailure(GE_INTERNAL, "unknown exception");
  }
}

// Whether a struct the plugin passed in (its struct_size first) holds `member`:
// a plugin built against an older header passes a shorter struct.
#define GE_PLUGIN_HAS(def, type, member) ((def).struct_size >= offsetof(type, member) + sizeof((def).member))

ge::OpSchema SchemaOf(const ge_plugin_op_def& def) {
  // The members up to infer_user_data are plugin ABI 1.0; later ones are optional.
  if (!GE_PLUGIN_HAS(def, ge_plugin_op_def, infer_user_data) || def.op_type == nullptr || def.infer == nullptr) {
    throw ge::Error(ge::ErrorCode::kInvalidArgument, "register_op: op_type, infer and struct_size are required");
  }
  ge::OpSchema schema(def.op_type);
  // Empty type variables: any dtype; the plugin's kernels decide what runs.
  for (size_t i = 0; i < def.num_inputs; ++i) schema.Input(fmt::format("input{}", i), "");
  for (size_t i = 0; i < def.num_outputs; ++i) schema.Output(fmt::format("output{}", i), "");
  for (size_t i = 0; i < def.num_attrs; ++i) {
    const ge_plugin_attr_decl& attr = def.attrs[i];
    std::string name = RequireString(attr.name, "attrs[].name");
    ge::AttrValue default_value;
    switch (attr.type) {
      case GE_PLUGIN_ATTR_INT: default_value = attr.default_int; break;
      case GE_PLUGIN_ATTR_FLOAT: default_value = static_cast<float>(attr.default_float); break;
      case GE_PLUGIN_ATTR_STRING: default_value = std::string(attr.default_string ? attr.default_string : ""); break;
      default:
        throw ge::Error(ge::ErrorCode::kInvalidArgument,
                        fmt::format("register_op '{}': attribute '{}' has unknown type {} (valid: int 0, float 1, string 2)",
                                    def.op_type, name, static_cast<int>(attr.type)));
    }
    if (attr.required) {
      schema.RequiredAttr(name, ge::TypeOf(default_value));
    } else {
      schema.Attr(name, std::move(default_value));
    }
  }
  ge_plugin_infer_fn infer = def.infer;
  void* user_data = def.infer_user_data;
  schema.Infer([infer, user_data](ge::InferContext& context) {
    InferState state{context};
    if (infer(user_data, reinterpret_cast<ge_plugin_infer_context*>(&state)) != 0) {
      context.Fail("plugin inference failed: " + TakePluginError());
    }
  });
  if (GE_PLUGIN_HAS(def, ge_plugin_op_def, doc) && def.doc != nullptr) schema.Doc(def.doc);
  return schema;
}

class PluginKernel final : public ge::device::Kernel {
 public:
  PluginKernel(const ge::Node& node, ge_plugin_kernel_fn run, void* user_data)
      : description_(node.Describe()), attrs_(node.attrs()), run_(run), user_data_(user_data) {}

  void Run(const ge::device::KernelContext& context) const override {
    KernelState state{context, attrs_};
    if (run_(user_data_, reinterpret_cast<const ge_plugin_kernel_context*>(&state)) != 0) {
      throw ge::Error(ge::ErrorCode::kInternal, fmt::format("{}: plugin kernel failed: {}", description_, TakePluginError()));
    }
  }

 private:
  std::string description_;
  ge::AttrMap attrs_;  // a copy: the graph need not outlive the compiled model
  ge_plugin_kernel_fn run_;
  void* user_data_;
};

ge_status HostRegisterOp(const ge_plugin_op_def* def) {
  return GuardPluginCall([&] {
    RequireArgument(def, "def");
    ge::OpRegistry::Global().Register(SchemaOf(*def));
  });
}

ge_status HostRegisterCpuKernel(const ge_plugin_kernel_def* def) {
  return GuardPluginCall([&] {
    RequireArgument(def, "def");
    if (!GE_PLUGIN_HAS(*def, ge_plugin_kernel_def, user_data) || def->op_type == nullptr || def->run == nullptr) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument, "register_cpu_kernel: op_type, run and struct_size are required");
    }
    ge_plugin_kernel_fn run = def->run;
    void* user_data = def->user_data;
    ge::device::KernelDef kernel;
    kernel.op_type = def->op_type;
    kernel.dtypes = {DataTypeOf(def->dtype)};
    kernel.factory = [run, user_data](const ge::Node& node) -> std::unique_ptr<ge::device::Kernel> {
      return std::make_unique<PluginKernel>(node, run, user_data);
    };
    ge::device::RegisterCpuKernel(std::move(kernel));
  });
}

void SetError(const char* message) { plugin_error = message != nullptr ? message : ""; }

// Inference accessors. Indexes out of range read as absent (rank 0, NULL).
size_t InferNumInputs(const ge_plugin_infer_context* c) { return FromC(c).context.num_inputs(); }
bool HasInput(const ge::InferContext& context, size_t i) { return i < context.num_inputs() && context.has_input(i); }
ge_dtype InferInputDtype(const ge_plugin_infer_context* c, size_t i) {
  const ge::InferContext& context = FromC(c).context;
  return HasInput(context, i) ? static_cast<ge_dtype>(context.input_dtype(i)) : GE_DTYPE_UNDEFINED;
}
size_t InferInputRank(const ge_plugin_infer_context* c, size_t i) {
  const ge::InferContext& context = FromC(c).context;
  return HasInput(context, i) ? context.input_shape(i).rank() : 0;
}
const int64_t* InferInputDims(const ge_plugin_infer_context* c, size_t i) {
  const ge::InferContext& context = FromC(c).context;
  return HasInput(context, i) ? context.input_shape(i).dims().data() : nullptr;
}
const ge_plugin_attrs* InferAttrs(const ge_plugin_infer_context* c) { return ToC(FromC(c).context.attrs()); }
ge_status InferSetOutput(ge_plugin_infer_context* c, size_t i, ge_dtype dtype, const int64_t* dims, size_t rank) {
  return GuardPluginCall([&] {
    ge::InferContext& context = FromC(c).context;
    if (i >= context.num_outputs()) {
      context.Fail(fmt::format("plugin set output {} of {}", i, context.num_outputs()));
    }
    context.set_output(i, DataTypeOf(dtype), ShapeOf(dims, rank));
  });
}

// Kernel accessors over the runtime's tensor views.
const ge::device::TensorView* View(std::span<const ge::device::TensorView> views, size_t i) {
  return i < views.size() ? &views[i] : nullptr;
}
size_t KernelNumInputs(const ge_plugin_kernel_context* c) { return FromC(c).context.inputs.size(); }
size_t KernelNumOutputs(const ge_plugin_kernel_context* c) { return FromC(c).context.outputs.size(); }
const void* KernelInputData(const ge_plugin_kernel_context* c, size_t i) {
  const auto* view = View(FromC(c).context.inputs, i);
  return view ? view->data : nullptr;
}
void* KernelOutputData(const ge_plugin_kernel_context* c, size_t i) {
  const auto* view = View(FromC(c).context.outputs, i);
  return view ? view->data : nullptr;
}
ge_dtype KernelInputDtype(const ge_plugin_kernel_context* c, size_t i) {
  const auto* view = View(FromC(c).context.inputs, i);
  return view ? static_cast<ge_dtype>(view->dtype) : GE_DTYPE_UNDEFINED;
}
size_t ViewRank(const ge::device::TensorView* view) { return view && view->shape ? view->shape->rank() : 0; }
const int64_t* ViewDims(const ge::device::TensorView* view) {
  return view && view->shape ? view->shape->dims().data() : nullptr;
}
size_t KernelInputRank(const ge_plugin_kernel_context* c, size_t i) { return ViewRank(View(FromC(c).context.inputs, i)); }
const int64_t* KernelInputDims(const ge_plugin_kernel_context* c, size_t i) {
  return ViewDims(View(FromC(c).context.inputs, i));
}
size_t KernelOutputRank(const ge_plugin_kernel_context* c, size_t i) {
  return ViewRank(View(FromC(c).context.outputs, i));
}
const int64_t* KernelOutputDims(const ge_plugin_kernel_context* c, size_t i) {
  return ViewDims(View(FromC(c).context.outputs, i));
}
const ge_plugin_attrs* KernelAttrs(const ge_plugin_kernel_context* c) { return ToC(FromC(c).attrs); }

// Attribute getters: 0 and *out on a present attribute of that type.
template <typename T>
const T* FindAttr(const ge_plugin_attrs* attrs, const char* name) {
  if (attrs == nullptr || name == nullptr) return nullptr;
  const ge::AttrValue* value = FromC(attrs).Find(name);
  return value != nullptr ? std::get_if<T>(value) : nullptr;
}
int AttrInt(const ge_plugin_attrs* attrs, const char* name, int64_t* out) {
  const auto* value = FindAttr<int64_t>(attrs, name);
  if (value == nullptr || out == nullptr) return 1;
  *out = *value;
  return 0;
}
int AttrFloat(const ge_plugin_attrs* attrs, const char* name, double* out) {
  const auto* value = FindAttr<float>(attrs, name);
  if (value == nullptr || out == nullptr) return 1;
  *out = *value;
  return 0;
}
int AttrString(const ge_plugin_attrs* attrs, const char* name, const char** out) {
  const auto* value = FindAttr<std::string>(attrs, name);
  if (value == nullptr || out == nullptr) return 1;
  *out = value->c_str();
  return 0;
}

// Passes: a visitor over the nodes in topological order.
ge::Node& FromC(ge_plugin_node* node) { return *reinterpret_cast<ge::Node*>(node); }
const ge::Node& FromC(const ge_plugin_node* node) { return *reinterpret_cast<const ge::Node*>(node); }

class PluginPass final : public ge::Pass {
 public:
  PluginPass(std::string name, ge_plugin_node_visit_fn visit, void* user_data)
      : name_(std::move(name)), visit_(visit), user_data_(user_data) {}

  std::string name() const override { return name_; }
  bool Run(ge::Graph& graph, ge::PassContext&) override {
    bool changed = false;
    for (ge::Node* node : graph.TopologicalOrder()) {
      int node_changed = 0;
      if (visit_(user_data_, reinterpret_cast<ge_plugin_node*>(node), &node_changed) != 0) {
        throw ge::Error(ge::ErrorCode::kInvalidArgument,
                        fmt::format("{}: plugin pass failed: {}", node->Describe(), TakePluginError()));
      }
      changed = changed || node_changed != 0;
    }
    return changed;
  }

 private:
  std::string name_;
  ge_plugin_node_visit_fn visit_;
  void* user_data_;
};

// The ABI's stage numbers are fixed; ge's stages may gain members between them.
ge::PassStage PassStageOf(const ge_plugin_pass_def& def) {
  switch (def.stage) {
    case GE_PLUGIN_PASS_BEFORE_INFER_SHAPE: return ge::PassStage::kBeforeInferShape;
    case GE_PLUGIN_PASS_AFTER_INFER_SHAPE: return ge::PassStage::kAfterInferShape;
    case GE_PLUGIN_PASS_FINAL: return ge::PassStage::kFinal;
    default:
      throw ge::Error(ge::ErrorCode::kInvalidArgument,
                      fmt::format("register_pass '{}': stage {} is not a ge_plugin_pass_stage (valid: 1, 3, 6)",
                                  def.name, static_cast<int>(def.stage)));
  }
}

ge_status HostRegisterPass(const ge_plugin_pass_def* def) {
  return GuardPluginCall([&] {
    RequireArgument(def, "def");
    if (!GE_PLUGIN_HAS(*def, ge_plugin_pass_def, user_data) || def->name == nullptr || def->visit == nullptr) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument, "register_pass: name, visit and struct_size are required");
    }
    const ge::PassStage stage = PassStageOf(*def);
    std::string name = def->name;
    // RegisterExtraPass checks the pipeline's own names; the CPU device adds its rewrites at compile time.
    for (const std::unique_ptr<ge::Pass>& rewrite : ge::device::CpuDevice().RewritePasses()) {
      if (rewrite->name() == name) {
        throw ge::Error(ge::ErrorCode::kInvalidArgument,
                        fmt::format("register_pass '{}': the cpu device has a pass of that name", name));
      }
    }
    ge_plugin_node_visit_fn visit = def->visit;
    void* user_data = def->user_data;
    ge::RegisterExtraPass(stage, name, [name, visit, user_data] {
      return std::make_unique<PluginPass>(name, visit, user_data);
    });
  });
}

const char* NodeOpType(const ge_plugin_node* node) { return node ? FromC(node).op_type().c_str() : ""; }
const char* NodeName(const ge_plugin_node* node) { return node ? FromC(node).name().c_str() : ""; }
const ge_plugin_attrs* NodeAttrs(const ge_plugin_node* node) { return node ? ToC(FromC(node).attrs()) : nullptr; }

ge_status SetNodeAttr(ge_plugin_node* node, const char* name, ge::AttrValue value) {
  return GuardPluginCall([&] {
    RequireArgument(node, "node");
    FromC(node).attrs().Set(RequireString(name, "name"), std::move(value));
  });
}
ge_status NodeSetAttrInt(ge_plugin_node* node, const char* name, int64_t value) { return SetNodeAttr(node, name, value); }
ge_status NodeSetAttrFloat(ge_plugin_node* node, const char* name, double value) {
  return SetNodeAttr(node, name, static_cast<float>(value));
}
ge_status NodeSetAttrString(ge_plugin_node* node, const char* name, const char* value) {
  if (value == nullptr) return RecordFailure(GE_INVALID_ARGUMENT, "node_set_attr_string: value is NULL");
  return SetNodeAttr(node, name, std::string(value));
}

}  // namespace

namespace ge::runtime {

const ge_plugin_host& PluginHost() {
  static const ge_plugin_host host = {
      sizeof(ge_plugin_host), GE_PLUGIN_ABI_VERSION,
      HostRegisterOp, HostRegisterCpuKernel, SetError,
      InferNumInputs, InferInputDtype, InferInputRank, InferInputDims, InferAttrs, InferSetOutput,
      KernelNumInputs, KernelNumOutputs, KernelInputData, KernelOutputData, KernelInputDtype,
      KernelInputRank, KernelInputDims, KernelOutputRank, KernelOutputDims, KernelAttrs,
      AttrInt, AttrFloat, AttrString,
      HostRegisterPass, NodeOpType, NodeName, NodeAttrs, NodeSetAttrInt, NodeSetAttrFloat, NodeSetAttrString,
  };
  return host;
}

std::string TakePluginRegistrationError() { return TakePluginError(); }

}  // namespace ge::runtime
