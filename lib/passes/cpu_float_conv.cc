#include "passes/cpu_float_conv.h"

#include "passes/graph_rewrite.h"
#include "passes/impl_mode_selection.h"

namespace ge::passes {
namespace {

bool StringAttrIs(const Node& node, const char* name, const char* expected) {
  const AttrValue* value = AttrOrDefault(node, name);
  return value != nullptr && std::holds_alternative<std::string>(*value) && std::get<std::string>(*value) == expected;
}

}  // namespace

bool IsCpuFloat32Conv(const Node& node) {
  if (node.op_type() != "Conv2D" || node.num_outputs() != 1 || node.input(kConvX) == nullptr ||
      node.input(kConvOffsetW) != nullptr) {
    return false;
  }
  const AttrValue* offset_x = AttrOrDefault(node, "offset_x");
  if (offset_x != nullptr && (!std::holds_alternative<int64_t>(*offset_x) || std::get<int64_t>(*offset_x) != 0)) {
    return false;
  }
  if (node.input(kConvX)->dtype() != DataType::kFloat || node.output(0)->dtype() != DataType::kFloat) return false;
  return !StringAttrIs(node, kImplModeAttr, "high_performance") &&
         !StringAttrIs(node, kImplModeAttr, "enable_hi_float_32_execution");
}

}  // namespace ge::passes
