// The one loop of every elementwise unary kernel (math, activations,
// predicates): y[i] = op(x[i]) computed in Compute<In> and stored as Out.
// An op is a functor with a templated call operator; ops with attributes
// take the node in their constructor and read them there, once.
#pragma once

#include <memory>
#include <string>
#include <type_traits>

#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

template <typename Op>
Op MakeOp(const Node& node) {
  if constexpr (std::is_constructible_v<Op, const Node&>) {
    return Op(node);
  } else {
    return Op{};
  }
}

template <typename In, typename Out, typename Op>
class UnaryKernel final : public Kernel {
 public:
  explicit UnaryKernel(Op op) : op_(op) {}

  void Run(const KernelContext& ctx) const override {
    const In* x = ctx.inputs[0].as<const In>();
    Out* y = ctx.outputs[0].as<Out>();
    const int64_t n = ctx.outputs[0].num_elements();
    const Op op = op_;
#pragma omp parallel for simd if (n > kParallelGrain)
    for (int64_t i = 0; i < n; ++i) y[i] = Store<Out>(op(Load(x[i])));
  }

 private:
  Op op_;
};

// Registers op_type for the dtypes of `types`; the output has the input's
// dtype, or bool when kBoolOutput (predicates such as IsNan).
template <typename Op, bool kBoolOutput = false, typename... Ts>
void RegisterUnary(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterKernel(registry, op_type, DataTypesOf(types), [](const Node& node) {
    return DispatchDtype(node, InputDtype(node, 0), TypeList<Ts...>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      using In = typename decltype(tag)::type;
      using Out = std::conditional_t<kBoolOutput, bool, In>;
      return std::make_unique<UnaryKernel<In, Out, Op>>(MakeOp<Op>(node));
    });
  });
}

// Registers op_type for the dtypes of `types` with two implementations: the
// default Precise and, for high_performance (the node's applied mode) on the
// types computed in float, Fast; float64 always runs Precise.
template <typename Precise, typename Fast, typename... Ts>
void RegisterDualUnary(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterKernel(
      registry, op_type, DataTypesOf(types),
      [](const Node& node) {
        const bool fast = WantsHighPerformance(node);
        return DispatchDtype(node, InputDtype(node, 0), TypeList<Ts...>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
          using In = typename decltype(tag)::type;
          if constexpr (std::is_same_v<Compute<In>, float>) {
            if (fast) return std::make_unique<UnaryKernel<In, In, Fast>>(MakeOp<Fast>(node));
          }
          return std::make_unique<UnaryKernel<In, In, Precise>>(MakeOp<Precise>(node));
        });
      },
      DualImplModes());
}

}  // namespace ge::device::cpu
