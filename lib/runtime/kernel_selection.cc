#include "runtime/kernel_selection.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"

namespace ge::runtime {
namespace {

// The registry is keyed by the dtype of the first input, or of the first
// output for nodes without inputs.
DataType SelectionDtype(const Node& node) {
  if (const Value* input = node.input(0)) return input->dtype();
  return node.num_outputs() > 0 ? node.output(0)->dtype() : DataType::kUndefined;
}

[[noreturn]] void NoKernel(const device::Device& device, const Node& node, DataType dtype) {
  std::vector<std::string_view> offered;
  for (const device::KernelDef* def : device.kernels().All()) {
    if (def->op_type != node.op_type()) continue;
    for (DataType accepted : def->dtypes) offered.push_back(DataTypeName(accepted));
  }
  std::string available = offered.empty() ? fmt::format("the {} device has no kernel for {}", device.name(),
                                                        node.op_type())
                                          : fmt::format("its kernels accept {}", fmt::join(offered, ", "));
  throw Error(ErrorCode::kUnsupported, fmt::format("{}: no {} kernel for dtype {}; {}", node.Describe(),
                                                   device.name(), DataTypeName(dtype), available));
}

}  // namespace

const device::KernelDef& FindKernelDef(const device::Device& device, const Node& node) {
  DataType dtype = SelectionDtype(node);
  const device::KernelDef* def = device.kernels().Find(node.op_type(), dtype);
  if (def == nullptr) NoKernel(device, node, dtype);
  return *def;
}

SelectedKernel SelectKernel(const device::Device& device, const Node& node, const std::string& requested_impl_mode) {
  const device::KernelDef* def = &FindKernelDef(device, node);
  SelectedKernel selected;
  selected.kernel = def->factory(node);
  if (!selected.kernel) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: the {} kernel factory returned no kernel", node.Describe(),
                                                  device.name()));
  }
  const auto& modes = def->impl_modes;
  if (std::find(modes.begin(), modes.end(), requested_impl_mode) != modes.end()) {
    selected.impl_mode = requested_impl_mode;
  } else if (!modes.empty()) {
    selected.impl_mode = modes.front();
  }
  return selected;
}

}  // namespace ge::runtime
