// Unique: the unique elements or slices of x with their first indices,
// inverse indices and counts, through the algorithm the schema's inference
// uses (graph/unique.h). The unique count is part of the output shapes, which
// the runtime infers from x's values; the kernel checks that they agree.
#include <cstring>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/unique.h"

namespace ge::device::cpu {

namespace {

template <typename T>
class UniqueKernel final : public Kernel {
 public:
  UniqueKernel(const Node& node, int64_t outer, int64_t n, int64_t inner)
      : label_(node.Describe()),
        outer_(outer),
        n_(n),
        inner_(inner),
        sorted_(node.attrs().GetBool("sorted")),
        expected_(OutputShape(node, 1).dim(0)) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const UniqueResult result = [&] {
      if constexpr (std::is_same_v<T, BFloat16>) {
        // FindUnique compares with <: bfloat16 compares as the floats it widens to (exactly).
        std::vector<float> keys(static_cast<size_t>(outer_ * n_ * inner_));
        for (size_t i = 0; i < keys.size(); ++i) keys[i] = Load(x[i]);
        return FindUnique(keys.data(), outer_, n_, inner_, sorted_);
      } else {
        return FindUnique(x, outer_, n_, inner_, sorted_);
      }
    }();
    const auto m = static_cast<int64_t>(result.first.size());
    if (m != expected_) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: x has {} unique entries but the outputs were shaped "
                                                           "for {}",
                                                           label_, m, expected_));
    }
    T* y = ctx.outputs[0].as<T>();
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t u = 0; u < m; ++u) {
        std::memcpy(y + (o * m + u) * inner_, x + (o * n_ + result.first[u]) * inner_,
                    static_cast<size_t>(inner_) * sizeof(T));
      }
    }
    const std::vector<int64_t>* sources[] = {&result.first, &result.inverse, &result.counts};
    for (size_t i = 0; i < 3; ++i) {
      if (ctx.outputs.size() > i + 1 && ctx.outputs[i + 1].data != nullptr) {
        std::copy(sources[i]->begin(), sources[i]->end(), ctx.outputs[i + 1].as<int64_t>());
      }
    }
  }

 private:
  std::string label_;
  int64_t outer_, n_, inner_;
  bool sorted_;
  int64_t expected_;
};

std::unique_ptr<Kernel> MakeUnique(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const std::vector<int64_t>& axis_attr = node.attrs().GetInts("axis");
  int64_t outer = 1, n = x.NumElements(), inner = 1;
  if (!axis_attr.empty()) {
    const int64_t axis = NormalizeAxisOf(node, axis_attr[0], x.rank(), "axis");
    outer = Product(std::span(x.dims()).first(axis));
    n = x.dim(axis);
    inner = Product(std::span(x.dims()).subspan(axis + 1));
  }
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<UniqueKernel<typename decltype(tag)::type>>(node, outer, n, inner);
  });
}

}  // namespace

void RegisterUniqueKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Unique", DataTypesOf(NumericTypes{}), MakeUnique);
}

}  // namespace ge::device::cpu
