#include "runtime/compile/kernel_selection.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/impl_mode.h"

namespace ge::runtime {
namespace {

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

// The kernel of a node whose outputs all have zero elements: there is
// nothing to compute, and libraries such as oneDNN divide by a zero dim when
// such a problem is built (a MatMul over a [0, K] input died of SIGFPE).
class EmptyOutputsKernel : public device::Kernel {
 public:
  void Run(const device::KernelContext&) const override {}
};

bool AllOutputsEmpty(const Node& node) {
  if (node.num_outputs() == 0) return false;
  for (const Value* output : node.outputs()) {
    if (!output->shape().IsStatic() || output->shape().NumElements() != 0) return false;
  }
  return true;
}

}  // namespace

DataType KernelSelectionDtype(const Node& node) {
  if (const Value* input = node.input(0)) return input->dtype();
  return node.num_outputs() > 0 ? node.output(0)->dtype() : DataType::kUndefined;
}

const device::KernelDef& FindKernelDef(const device::Device& device, const Node& node) {
  DataType dtype = KernelSelectionDtype(node);
  const device::KernelDef* def = device.kernels().Find(node.op_type(), dtype);
  if (def == nullptr) NoKernel(device, node, dtype);
  return *def;
}

SelectedKernel SelectKernel(const device::Device& device, const Node& node) {
  const device::KernelDef* def = &FindKernelDef(device, node);
  SelectedKernel selected;
  const auto& modes = def->impl_modes;
  if (const std::optional<std::string_view> applied = AppliedImplMode(node)) {
    const std::string mode(*applied);
    if (std::find(modes.begin(), modes.end(), mode) == modes.end()) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("{}: the {} {} kernel for {} does not implement mode '{}'; it implements: {}",
                              node.Describe(), device.name(), node.op_type(), DataTypeName(KernelSelectionDtype(node)),
                              mode, modes.empty() ? std::string("none") : fmt::format("{}", fmt::join(modes, ", "))));
    }
    selected.impl_mode = mode;
  } else if (!modes.empty()) {
    selected.impl_mode = modes.front();
  }
  selected.kernel = AllOutputsEmpty(node) ? std::make_unique<EmptyOutputsKernel>() : def->factory(node);
  if (!selected.kernel) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: the {} kernel factory returned no kernel", node.Describe(),
                                                  device.name()));
  }
  return selected;
}

}  // namespace ge::runtime
