// TopKV2 and ArgMaxV2/ArgMinV2: order the elements along one axis. x is
// viewed as [outer, n, inner]; each (outer, inner) pair is one independent
// line of n elements with stride inner.
#include <algorithm>
#include <numeric>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/index_utils.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/axis_view.h"

namespace ge::device::cpu {

namespace {

// ONNX TopK: the k largest (smallest) elements, equal values ordered by
// index (the lower first), with their int64 indices.
template <typename T>
class TopKKernel final : public Kernel {
 public:
  TopKKernel(AxisView layout, int64_t k, bool largest) : layout_(layout), k_(k), largest_(largest) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* values = ctx.outputs[0].as<T>();
    auto* indices = ctx.outputs[1].as<int64_t>();
    const int64_t lines = layout_.outer * layout_.inner;
    ParallelFor(lines, lines * layout_.length > kParallelGrain, [&](int64_t line) {
      const int64_t o = line / layout_.inner, i = line % layout_.inner;
      const T* in = x + o * layout_.length * layout_.inner + i;
      std::vector<int64_t> order(static_cast<size_t>(layout_.length));
      std::iota(order.begin(), order.end(), 0);
      auto before = [&](int64_t a, int64_t b) {
        const auto va = Load(in[a * layout_.inner]), vb = Load(in[b * layout_.inner]);
        if (va != vb) return largest_ ? va > vb : va < vb;
        return a < b;
      };
      std::partial_sort(order.begin(), order.begin() + k_, order.end(), before);
      for (int64_t j = 0; j < k_; ++j) {
        const int64_t out = (o * k_ + j) * layout_.inner + i;
        values[out] = in[order[j] * layout_.inner];
        indices[out] = order[j];
      }
    });
  }

 private:
  AxisView layout_;
  int64_t k_;
  bool largest_;
};

std::unique_ptr<Kernel> MakeTopK(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("dim"), x.rank(), "dim");
  const int64_t k = OutputShape(node, 0).dim(axis);
  if (k > x.dim(axis) || node.output(1)->dtype() != DataType::kInt64) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("k = {} exceeds dim {} of x {}, or indices are not int64", k, axis, x.ToString()));
  }
  const AxisView layout = ViewAround(x.dims(), static_cast<size_t>(axis));
  const bool largest = node.attrs().GetBool("largest");
  return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<TopKKernel<typename decltype(tag)::type>>(layout, k, largest);
  });
}

// The index of the max (min) along the axis: the first one among equals, or
// the last with select_last_index.
template <typename T, typename Index>
class ArgReduceKernel final : public Kernel {
 public:
  ArgReduceKernel(const Node& node, bool max)
      : label_(node.Describe()),
        x_(InputShape(node, 0)),
        max_(max),
        last_(node.attrs().GetBool("select_last_index")) {}

  void Run(const KernelContext& ctx) const override {
    const int64_t axis = RuntimeAxis(label_, ctx.inputs[1], x_.rank(), "dimension");
    const AxisView layout = ViewAround(x_.dims(), static_cast<size_t>(axis));
    if (layout.length == 0) throw Error(ErrorCode::kInvalidArgument, label_ + ": cannot reduce an empty dim");
    const T* x = ctx.inputs[0].as<const T>();
    auto* y = ctx.outputs[0].as<Index>();
    const int64_t lines = layout.outer * layout.inner;
    ParallelFor(lines, lines * layout.length > kParallelGrain, [&](int64_t line) {
      const int64_t o = line / layout.inner, i = line % layout.inner;
      const T* in = x + o * layout.length * layout.inner + i;
      int64_t best = 0;
      for (int64_t j = 1; j < layout.length; ++j) {
        const auto v = Load(in[j * layout.inner]), b = Load(in[best * layout.inner]);
        const bool better = max_ ? v > b : v < b;
        if (better || (last_ && v == b)) best = j;
      }
      y[line] = static_cast<Index>(best);
    });
  }

 private:
  std::string label_;
  Shape x_;
  bool max_;
  bool last_;
};

KernelFactory ArgReduceFactory(bool max) {
  return [max](const Node& node) -> std::unique_ptr<Kernel> {
    if (InputShape(node, 0).rank() == 0) Fail(node, ErrorCode::kInvalidArgument, "x must have rank >= 1");
    return DispatchDtype(node, InputDtype(node, 0), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      using T = typename decltype(tag)::type;
      if (node.output(0)->dtype() == DataType::kInt32) return std::make_unique<ArgReduceKernel<T, int32_t>>(node, max);
      return std::make_unique<ArgReduceKernel<T, int64_t>>(node, max);
    });
  };
}

}  // namespace

void RegisterTopKKernels(KernelRegistry& registry) {
  // Elements are compared as Load() gives them (bfloat16 widened to float).
  const std::vector<DataType> ordered = DataTypesOf(NumericTypes{});
  RegisterKernel(registry, "TopKV2", ordered, MakeTopK);
  RegisterKernel(registry, "ArgMaxV2", ordered, ArgReduceFactory(true));
  RegisterKernel(registry, "ArgMinV2", ordered, ArgReduceFactory(false));
}

}  // namespace ge::device::cpu
