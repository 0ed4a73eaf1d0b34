#include "device/acl/acl_kernels.h"

#include <algorithm>
#include <memory>
#include <string>

#include "device/acl/acl_op_kernel.h"
#include "graph/sequence_op_types.h"

namespace ge::device::acl {

namespace {

// Every DataType but kUndefined: what a port without a type variable allows.
const std::vector<DataType>& EveryDtype() {
  static const std::vector<DataType> list = {
      DataType::kFloat,  DataType::kFloat16, DataType::kInt8,   DataType::kInt32,     DataType::kUInt8,
      DataType::kInt16,  DataType::kUInt16,  DataType::kUInt32, DataType::kInt64,     DataType::kUInt64,
      DataType::kDouble, DataType::kBool,    DataType::kString, DataType::kComplex64, DataType::kComplex128,
      DataType::kBFloat16};
  return list;
}

const std::vector<DataType>& AllowedDtypes(const OpSchema& schema, const PortSpec& port) {
  if (port.type_var.empty()) return EveryDtype();
  // OpRegistry::Register refuses a port whose type variable has no constraint.
  return schema.FindTypeConstraint(port.type_var)->allowed;
}

bool MayBeAbsent(const PortSpec& port) {
  return port.arity == Arity::kOptional || (port.arity == Arity::kDynamic && port.min_count == 0);
}

}  // namespace

const std::vector<std::string_view>& HostHandledOpTypes() {
  static const std::vector<std::string_view> list = [] {
    std::vector<std::string_view> types = {
      // Graph sources: a Data node is a model input and a Const node a
      // constant; the runtime gives their values storage of their own (input
      // buffers, constants copied to the device once) and never runs them as a
      // step (runtime/compile/model_layout.cc, storage_plan.cc, runtime/dynamic/dynamic_executor.cc).
      "Data",
      "Const",
      // Control flow (runtime::ControlFlowOp::Handles): not kernels but the
      // runtime's ControlFlowOp, which runs their subgraphs as models of their
      // own (runtime/dynamic/control_flow.cc). A model holding one runs dynamically,
      // which only a host-memory device does: runtime/compile/compiler.cc refuses it
      // for the Ascend device. Nor could AclOpKernel hand them to ACL: their
      // subgraph attributes have no aclopAttr form (acl_op_kernel.h).
      "If",
      "Loop",
      "Scan",
      "PartitionedCall",
    };
    // And the sequence and optional ops (graph/sequence_op_types.h): run on
    // whole values by the runtime; a model holding one is dynamic, so likewise
    // host-only.
    types.insert(types.end(), SequenceOpTypes().begin(), SequenceOpTypes().end());
    return types;
  }();
  return list;
}

std::vector<DataType> KernelSelectionDtypes(const OpSchema& schema) {
  std::vector<DataType> dtypes;
  const auto add = [&](const PortSpec& port) {
    const std::vector<DataType>& allowed = AllowedDtypes(schema, port);
    dtypes.insert(dtypes.end(), allowed.begin(), allowed.end());
  };
  // Selection reads input 0 when the node has one, else output 0.
  const bool input_may_be_absent = schema.inputs().empty() || MayBeAbsent(schema.inputs().front());
  if (!schema.inputs().empty()) add(schema.inputs().front());
  if (input_may_be_absent && !schema.outputs().empty()) add(schema.outputs().front());
  std::sort(dtypes.begin(), dtypes.end());
  dtypes.erase(std::unique(dtypes.begin(), dtypes.end()), dtypes.end());
  return dtypes;
}

KernelRegistry AclKernels(const OpRegistry& schemas) {
  const std::vector<std::string_view>& excluded = HostHandledOpTypes();
  KernelRegistry registry;
  for (const std::string& op_type : schemas.OpTypes()) {
    if (std::find(excluded.begin(), excluded.end(), op_type) != excluded.end()) continue;
    std::vector<DataType> dtypes = KernelSelectionDtypes(*schemas.Find(op_type));
    // No input and no output: kernel selection has no dtype to find a kernel by.
    if (dtypes.empty()) continue;
    registry.Register(KernelDef{op_type, std::move(dtypes), {},
                                [](const Node& node) { return std::make_unique<AclOpKernel>(node); }});
  }
  return registry;
}

}  // namespace ge::device::acl
