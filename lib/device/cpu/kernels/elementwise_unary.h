// The one loop of every elementwise unary kernel (math, activations,
// predicates): y[i] = op(x[i]) computed in Compute<In> and stored as Out.
// An op is a functor with a templated call operator; ops with attributes
// take the node in their constructor and read them there, once.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/dual_mode.h"
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

// The loop itself, run per CPU (cpu_clones.h); y may alias x.
template <typename In, typename Out, typename Op>
void UnarySpan(const In* x, Out* y, int64_t count, Op op) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) y[i] = Store<Out>(op(Load(x[i])));
}

template <typename In, typename Out, typename Op>
class UnaryKernel final : public Kernel {
 public:
  explicit UnaryKernel(Op op) : op_(op) {}

  bool TakesShapesAtRun() const override { return true; }  // elementwise over whatever the run gives

  void Run(const KernelContext& ctx) const override {
    const In* x = ctx.inputs[0].as<const In>();
    Out* y = ctx.outputs[0].as<Out>();
    ForEachChunk(ctx.outputs[0].num_elements(), [&](int64_t begin, int64_t end) {
      PerCpu<kClonesPay<In>>([&] { UnarySpan(x + begin, y + begin, end - begin, op_); });
    });
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

// Makes a UnaryKernel computing Op on T (for RegisterDualMode).
struct UnaryKernelBuild {
  template <typename Op, typename T>
  static std::unique_ptr<Kernel> Make(const Node& node) {
    return std::make_unique<UnaryKernel<T, T, Op>>(MakeOp<Op>(node));
  }
};

// Registers op_type with a precise and a fast implementation (dual_mode.h).
template <typename Precise, typename Fast, typename... Ts>
void RegisterDualUnary(KernelRegistry& registry, const std::string& op_type, TypeList<Ts...> types) {
  RegisterDualMode<UnaryKernelBuild, Precise, Fast>(registry, op_type, types);
}

}  // namespace ge::device::cpu
