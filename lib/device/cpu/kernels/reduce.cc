// ReduceSumD, ReduceMeanD, ReduceMaxD, ReduceMinD, ReduceProdD over any set of
// axes. keep_dims only changes the output shape, not the data.
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// Float sums and products accumulate in double: long reductions keep float
// precision that way.
template <typename T>
using WideAcc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <typename T>
struct SumReducer {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Step(Acc acc, T x) { return acc + x; }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(acc); }
};
template <typename T>
struct MeanReducer {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Step(Acc acc, T x) { return acc + x; }
  static T Finish(Acc acc, int64_t count) { return static_cast<T>(acc / static_cast<Acc>(count)); }
};
template <typename T>
struct ProdReducer {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(1); }
  static Acc Step(Acc acc, T x) { return acc * x; }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(acc); }
};
template <typename T>
struct MaxReducer {
  using Acc = T;
  static Acc Init() {
    return std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
  }
  static Acc Step(Acc acc, T x) { return std::max(acc, x); }
  static T Finish(Acc acc, int64_t) { return acc; }
};
template <typename T>
struct MinReducer {
  using Acc = T;
  static Acc Init() {
    return std::is_floating_point_v<T> ? std::numeric_limits<T>::infinity() : std::numeric_limits<T>::max();
  }
  static Acc Step(Acc acc, T x) { return std::min(acc, x); }
  static T Finish(Acc acc, int64_t) { return acc; }
};

// A group of merged input dims with their element strides; an index into the
// group maps to an element offset.
struct DimGroup {
  std::vector<int64_t> dims;
  std::vector<int64_t> strides;

  int64_t size() const { return Product(dims); }
  int64_t Offset(int64_t index) const {
    int64_t offset = 0;
    for (size_t k = dims.size(); k-- > 0;) {
      offset += (index % dims[k]) * strides[k];
      index /= dims[k];
    }
    return offset;
  }
};

// The input with size-1 dims dropped and adjacent dims of the same kind
// (kept or reduced) merged. The last merged dim is the contiguous `inner`
// run; the others are split into kept (`outer`) and reduced groups.
struct ReducePlan {
  DimGroup outer;
  DimGroup reduced;
  int64_t inner = 1;
  bool inner_reduced = false;
  int64_t count = 1;  // elements reduced into each output
};

ReducePlan PlanReduce(const std::vector<int64_t>& in_dims, const std::vector<bool>& reduced) {
  std::vector<int64_t> dims;
  std::vector<bool> kinds;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (in_dims[d] == 1) continue;
    if (!dims.empty() && kinds.back() == reduced[d]) {
      dims.back() *= in_dims[d];
    } else {
      dims.push_back(in_dims[d]);
      kinds.push_back(reduced[d]);
    }
  }
  ReducePlan plan;
  if (dims.empty()) return plan;  // one element in, one out
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  plan.inner = dims.back();
  plan.inner_reduced = kinds.back();
  for (size_t k = 0; k + 1 < dims.size(); ++k) {
    DimGroup& group = kinds[k] ? plan.reduced : plan.outer;
    group.dims.push_back(dims[k]);
    group.strides.push_back(strides[k]);
  }
  plan.count = plan.reduced.size() * (plan.inner_reduced ? plan.inner : 1);
  return plan;
}

template <typename T, template <typename> class Reducer>
class ReduceKernel final : public Kernel {
  using R = Reducer<T>;
  using Acc = typename R::Acc;

 public:
  explicit ReduceKernel(ReducePlan plan) : plan_(std::move(plan)) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t outputs = plan_.outer.size();
    const int64_t reduced = plan_.reduced.size();
    const int64_t inner = plan_.inner;
    const int64_t work = outputs * reduced * inner;
    if (plan_.inner_reduced) {
#pragma omp parallel for if (work > kParallelGrain)
      for (int64_t o = 0; o < outputs; ++o) {
        const int64_t base = plan_.outer.Offset(o);
        Acc acc = R::Init();
        for (int64_t r = 0; r < reduced; ++r) {
          const T* run = x + base + plan_.reduced.Offset(r);
          for (int64_t j = 0; j < inner; ++j) acc = R::Step(acc, run[j]);
        }
        y[o] = R::Finish(acc, plan_.count);
      }
    } else {
#pragma omp parallel for if (work > kParallelGrain)
      for (int64_t o = 0; o < outputs; ++o) {
        const int64_t base = plan_.outer.Offset(o);
        std::vector<Acc> acc(static_cast<size_t>(inner), R::Init());
        for (int64_t r = 0; r < reduced; ++r) {
          const T* run = x + base + plan_.reduced.Offset(r);
          for (int64_t j = 0; j < inner; ++j) acc[j] = R::Step(acc[j], run[j]);
        }
        T* out = y + o * inner;
        for (int64_t j = 0; j < inner; ++j) out[j] = R::Finish(acc[j], plan_.count);
      }
    }
  }

 private:
  ReducePlan plan_;
};

template <template <typename> class Reducer>
void RegisterReduce(KernelRegistry& registry, const std::string& op_type) {
  RegisterKernel(registry, op_type, DataTypesOf(ArithmeticTypes{}), [](const Node& node) {
    const Shape& in = InputShape(node, 0);
    std::vector<int64_t> axes = NormalizeAxesOf(node, node.attrs().GetInts("axes"), in.rank(), "axes");
    std::vector<bool> reduced(in.rank(), axes.empty());  // no axes: reduce all
    for (int64_t axis : axes) reduced[axis] = true;
    int64_t kept = 1;
    for (size_t d = 0; d < in.rank(); ++d) kept *= reduced[d] ? 1 : in.dim(d);
    if (kept != OutputShape(node, 0).NumElements()) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("output shape {} does not match reducing {} over axes [{}]", OutputShape(node, 0).ToString(),
                       in.ToString(), fmt::join(axes, ", ")));
    }
    ReducePlan plan = PlanReduce(in.dims(), reduced);
    return DispatchDtype(node, InputDtype(node, 0), ArithmeticTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<ReduceKernel<typename decltype(tag)::type, Reducer>>(plan);
    });
  });
}

}  // namespace

void RegisterReduceKernels(KernelRegistry& registry) {
  RegisterReduce<SumReducer>(registry, "ReduceSumD");
  RegisterReduce<MeanReducer>(registry, "ReduceMeanD");
  RegisterReduce<ProdReducer>(registry, "ReduceProdD");
  RegisterReduce<MaxReducer>(registry, "ReduceMaxD");
  RegisterReduce<MinReducer>(registry, "ReduceMinD");
}

}  // namespace ge::device::cpu
