// Registering an op that has two implementations: the default Precise one
// for every dtype, and Fast for nodes whose applied mode is high_performance
// (ImplModeOf) on the dtypes computed in float (float32, float16, bfloat16);
// float64 and the integers always run Precise.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

// `Build::Make<Op, T>(node)` builds the kernel computing Op on dtype T.
template <typename Build, typename Precise, typename Fast, typename... Ts>
void RegisterDualMode(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterKernel(
      registry, op_type, DataTypesOf(types),
      [](const Node& node) {
        const bool fast = WantsHighPerformance(node);
        return DispatchDtype(node, InputDtype(node, 0), TypeList<Ts...>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<Compute<T>, float>) {
            if (fast) return Build::template Make<Fast, T>(node);
          }
          return Build::template Make<Precise, T>(node);
        });
      },
      DualImplModes());
}

}  // namespace ge::device::cpu
