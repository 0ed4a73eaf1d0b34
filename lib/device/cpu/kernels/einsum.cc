// Einsum by a direct loop: every output element sums, over all values of the
// contracted labels, the product of the operands' elements. Each operand's
// element offset is a linear function of the label values (repeated labels
// add their strides: a diagonal; broadcast size-1 dims contribute nothing).
#include <algorithm>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/einsum_equation.h"

namespace ge::device::cpu {

namespace {

struct EinsumPlan {
  std::vector<int64_t> out_sizes;          // per output label
  std::vector<int64_t> sum_sizes;          // per contracted label
  // Per operand: the offset step of each output label and each contracted label.
  std::vector<std::vector<int64_t>> out_steps, sum_steps;
};

template <typename T>
class EinsumKernel final : public Kernel {
  // Float products and sums in double (float16/bfloat16 widened through Load()), integers in their own type.
  using Acc = std::conditional_t<std::is_floating_point_v<Compute<T>>, double, T>;

 public:
  explicit EinsumKernel(EinsumPlan plan) : plan_(std::move(plan)) {}

  void Run(const KernelContext& ctx) const override {
    const size_t operands = plan_.out_steps.size();
    std::vector<const T*> in(operands);
    for (size_t i = 0; i < operands; ++i) in[i] = ctx.inputs[i].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t total = Product(plan_.out_sizes);
    const int64_t inner = Product(plan_.sum_sizes);
    ParallelFor(total, total * inner * static_cast<int64_t>(operands) > kParallelGrain, [&](int64_t flat) {
      std::vector<int64_t> base(operands, 0);
      int64_t rest = flat;
      for (size_t l = plan_.out_sizes.size(); l-- > 0;) {
        const int64_t v = rest % plan_.out_sizes[l];
        rest /= plan_.out_sizes[l];
        for (size_t i = 0; i < operands; ++i) base[i] += v * plan_.out_steps[i][l];
      }
      Acc sum = Acc(0);
      for (int64_t s = 0; s < inner; ++s) {
        int64_t r = s;
        Acc product = Acc(1);
        std::vector<int64_t> offset = base;
        for (size_t l = plan_.sum_sizes.size(); l-- > 0;) {
          const int64_t v = r % plan_.sum_sizes[l];
          r /= plan_.sum_sizes[l];
          for (size_t i = 0; i < operands; ++i) offset[i] += v * plan_.sum_steps[i][l];
        }
        for (size_t i = 0; i < operands; ++i) product *= static_cast<Acc>(Load(in[i][offset[i]]));
        sum += product;
      }
      y[flat] = Store<T>(sum);
    });
  }

 private:
  EinsumPlan plan_;
};

EinsumPlan PlanEinsum(const Node& node) {
  std::vector<size_t> ranks;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    shapes.push_back(InputShape(node, i));
    ranks.push_back(shapes.back().rank());
    if (InputDtype(node, i) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("input {} is {}; all inputs must be {}", i,
                                                          DataTypeName(InputDtype(node, i)),
                                                          DataTypeName(InputDtype(node, 0))));
    }
  }
  EinsumEquation eq;
  std::vector<int64_t> sizes;
  try {
    eq = ParseEinsum(node.attrs().GetString("equation"), ranks);
    sizes = EinsumLabelSizes(eq, shapes);
  } catch (const Error& e) {
    Fail(node, e.code(), e.what());
  }
  std::vector<bool> in_output(eq.num_labels, false);
  for (int label : eq.output) in_output[label] = true;
  std::vector<int> contracted;
  for (int label = 0; label < eq.num_labels; ++label) {
    bool used = false;
    for (const auto& labels : eq.inputs) used = used || std::find(labels.begin(), labels.end(), label) != labels.end();
    if (used && !in_output[label]) contracted.push_back(label);
  }
  EinsumPlan plan;
  for (int label : eq.output) plan.out_sizes.push_back(sizes[label]);
  for (int label : contracted) plan.sum_sizes.push_back(sizes[label]);
  if (Product(plan.out_sizes) != OutputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("output shape {} does not match the equation",
                                                     OutputShape(node, 0).ToString()));
  }
  for (size_t i = 0; i < eq.inputs.size(); ++i) {
    std::vector<int64_t> step(eq.num_labels, 0);
    const std::vector<int64_t> strides = RowMajorStrides(shapes[i].dims());
    for (size_t d = 0; d < eq.inputs[i].size(); ++d) {
      if (shapes[i].dim(d) != 1) step[eq.inputs[i][d]] += strides[d];  // size 1: broadcast
    }
    std::vector<int64_t> out_step, sum_step;
    for (int label : eq.output) out_step.push_back(step[label]);
    for (int label : contracted) sum_step.push_back(step[label]);
    plan.out_steps.push_back(std::move(out_step));
    plan.sum_steps.push_back(std::move(sum_step));
  }
  return plan;
}

using EinsumTypes = NumericTypes;

std::unique_ptr<Kernel> MakeEinsum(const Node& node) {
  EinsumPlan plan = PlanEinsum(node);
  return DispatchDtype(node, InputDtype(node, 0), EinsumTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<EinsumKernel<typename decltype(tag)::type>>(plan);
  });
}

}  // namespace

void RegisterEinsumKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Einsum", DataTypesOf(EinsumTypes{}), MakeEinsum);
}

}  // namespace ge::device::cpu
