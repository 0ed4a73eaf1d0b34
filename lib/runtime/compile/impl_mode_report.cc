#include "ge/impl_mode_report.h"

#include "graph/impl_mode.h"
#include "runtime/compile/kernel_selection.h"

namespace ge {
namespace {

std::string StringAttr(const Node& node, const char* name) {
  const AttrValue* value = node.attrs().Find(name);
  return value != nullptr && TypeOf(*value) == AttrType::kString ? std::get<std::string>(*value) : std::string();
}

}  // namespace

std::vector<ImplModeRecord> ImplModeReport(const CompiledModel& model) {
  std::vector<ImplModeRecord> records;
  // The impl_mode pass leaves a reason on exactly the nodes it reports.
  for (const Node* node : model.graph().TopologicalOrder()) {
    if (!node->attrs().Has(kImplModeReasonAttr)) continue;
    records.push_back({node->name(), node->op_type(), runtime::KernelSelectionDtype(*node),
                       StringAttr(*node, kRequestedImplModeAttr), StringAttr(*node, kImplModeAttr),
                       StringAttr(*node, kImplModeReasonAttr)});
  }
  return records;
}

}  // namespace ge
