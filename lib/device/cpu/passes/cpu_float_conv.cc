#include "device/cpu/passes/cpu_float_conv.h"

#include "device/cpu/kernels/kernel_utils.h"
#include "passes/graph_rewrite.h"

namespace ge::device::cpu {

bool IsCpuFloat32Conv(const Node& node) {
  if (node.op_type() != "Conv2D" || node.num_outputs() != 1 || node.input(kConvX) == nullptr ||
      node.input(kConvOffsetW) != nullptr) {
    return false;
  }
  const AttrValue* offset_x = passes::AttrOrDefault(node, "offset_x");
  if (offset_x != nullptr && (!std::holds_alternative<int64_t>(*offset_x) || std::get<int64_t>(*offset_x) != 0)) {
    return false;
  }
  if (node.input(kConvX)->dtype() != DataType::kFloat || node.output(0)->dtype() != DataType::kFloat) return false;
  return !WantsReducedPrecisionProducts(node);
}

}  // namespace ge::device::cpu
