// ReduceSumD, ReduceMeanD, ReduceMaxD, ReduceMinD, ReduceProdD and the norm-like
// ReduceL1D, ReduceL2D, ReduceSumSquareD, ReduceLogSumD, ReduceLogSumExpD over
// any set of axes; ReduceSum with the axes as an input read at run time.
// keep_dims only changes the output shape, not the data. The reducers see
// elements as Load() gives them (float16/bfloat16 widened to float) and the
// result is rounded back to the dtype once. ReduceMeanD has a
// high_performance mode that sums in the compute type instead of double.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "ge/shape.h"

namespace ge::device::cpu {

namespace {

// Float sums and products accumulate in double: long reductions keep float
// precision that way.
template <typename T>
using WideAcc = std::conditional_t<std::is_floating_point_v<T>, double, T>;

// Sums in Acc; a contiguous run goes into SIMD partial sums. The
// reassociation is exact for integers and, in the double accumulator of the
// float dtypes, far below their rounding.
template <typename Acc_>
struct Summing {
  using Acc = Acc_;
  static Acc Init() { return Acc(0); }
  template <typename C>
  static Acc Step(Acc acc, C x) {
    return acc + x;
  }
  template <typename In>
  static Acc StepRun(Acc acc, const In* run, int64_t n) {
#pragma omp simd reduction(+ : acc)
    for (int64_t j = 0; j < n; ++j) acc += Load(run[j]);
    return acc;
  }
};
template <typename T>
struct SumReducer : Summing<WideAcc<T>> {
  static T Finish(WideAcc<T> acc, int64_t) { return static_cast<T>(acc); }
};
template <typename T>
struct MeanReducer : Summing<WideAcc<T>> {
  static T Finish(WideAcc<T> acc, int64_t count) { return static_cast<T>(acc / static_cast<WideAcc<T>>(count)); }
};
// ReduceMeanD's high_performance mode: the sum in the compute type (float for
// float16/bfloat16/float32), scaled by 1/count.
template <typename T>
struct FastMeanReducer : Summing<T> {
  static T Finish(T acc, int64_t count) { return acc * (T(1) / static_cast<T>(count)); }
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

template <typename T>
struct L1Reducer {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Step(Acc acc, T x) { return acc + (x < T(0) ? Acc(0) - Acc(x) : Acc(x)); }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(acc); }
};
template <typename T>
struct SumSquareReducer {
  using Acc = WideAcc<T>;
  static Acc Init() { return Acc(0); }
  static Acc Step(Acc acc, T x) { return acc + Acc(x) * Acc(x); }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(acc); }
};
// The square root, logarithm and exponential are taken in double for every
// dtype; integer results are truncated like ONNX Runtime's casts.
template <typename T>
struct L2Reducer {
  using Acc = double;
  static Acc Init() { return 0.0; }
  static Acc Step(Acc acc, T x) { return acc + static_cast<double>(x) * static_cast<double>(x); }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(std::sqrt(acc)); }
};
template <typename T>
struct LogSumReducer {
  using Acc = double;
  static Acc Init() { return 0.0; }
  static Acc Step(Acc acc, T x) { return acc + static_cast<double>(x); }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(std::log(acc)); }
};
// A running log-sum-exp (acc = log of the sum so far) never overflows exp().
template <typename T>
struct LogSumExpReducer {
  using Acc = double;
  static Acc Init() { return -std::numeric_limits<double>::infinity(); }
  static Acc Step(Acc acc, T x) {
    const double v = static_cast<double>(x);
    const double hi = std::max(acc, v);
    if (hi == -std::numeric_limits<double>::infinity()) return hi;
    return hi + std::log1p(std::exp(std::min(acc, v) - hi));
  }
  static T Finish(Acc acc, int64_t) { return static_cast<T>(acc); }
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

// The dims of an empty input as far as they matter: a kept zero leaves no
// output, so only it counts; a reduced zero leaves every output the reducer's
// identity, so the other reduced dims do not count. The dims set to 1 may be
// huge (a shape with a zero is valid whatever its other dims), and multiplying
// them would overflow.
std::vector<int64_t> WithoutDimsOfNoElements(std::vector<int64_t> dims, const std::vector<bool>& reduced) {
  bool kept_zero = false;
  bool reduced_zero = false;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 0) (reduced[d] ? reduced_zero : kept_zero) = true;
  }
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] != 0 && (kept_zero || (reduced_zero && reduced[d]))) dims[d] = 1;
  }
  return dims;
}

// Elements of the output: the product of the kept dims.
int64_t KeptElements(const std::vector<int64_t>& in_dims, const std::vector<bool>& reduced) {
  std::vector<int64_t> kept;
  for (size_t d = 0; d < in_dims.size(); ++d) {
    if (!reduced[d]) kept.push_back(in_dims[d]);
  }
  return Shape(std::move(kept)).NumElements();
}

ReducePlan PlanReduce(const std::vector<int64_t>& input_dims, const std::vector<bool>& reduced) {
  const std::vector<int64_t> in_dims = WithoutDimsOfNoElements(input_dims, reduced);
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

// Folds a contiguous run into acc: by the reducer's own StepRun when it has
// one (a reassociating SIMD loop), else element by element in order.
template <typename R, typename T>
typename R::Acc StepRun(typename R::Acc acc, const T* run, int64_t n) {
  if constexpr (requires { R::StepRun(acc, run, n); }) {
    return R::StepRun(acc, run, n);
  } else {
    for (int64_t j = 0; j < n; ++j) acc = R::Step(acc, Load(run[j]));
    return acc;
  }
}

// Folds a contiguous run into as many accumulators, one per lane.
template <typename R, typename T>
void StepLanes(typename R::Acc* acc, const T* run, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) acc[j] = R::Step(acc[j], Load(run[j]));
}

// Reduces x into y as the plan says.
template <typename T, template <typename> class Reducer>
void ReduceByPlan(const ReducePlan& plan, const T* x, T* y) {
  using R = Reducer<Compute<T>>;
  using Acc = typename R::Acc;
  const int64_t outputs = plan.outer.size();
  const int64_t reduced = plan.reduced.size();
  const int64_t inner = plan.inner;
  const int64_t work = outputs * reduced * inner;
  if (plan.inner_reduced) {
    ParallelFor(outputs, work > kParallelGrain, [&](int64_t o) {
      const int64_t base = plan.outer.Offset(o);
      Acc acc = R::Init();
      for (int64_t r = 0; r < reduced; ++r) {
        acc = PerCpu<kClonesPay<T>>([&] { return StepRun<R>(acc, x + base + plan.reduced.Offset(r), inner); });
      }
      y[o] = Store<T>(R::Finish(acc, plan.count));
    });
  } else {
    ParallelFor(outputs, work > kParallelGrain, [&](int64_t o) {
      const int64_t base = plan.outer.Offset(o);
      std::vector<Acc> acc(static_cast<size_t>(inner), R::Init());
      for (int64_t r = 0; r < reduced; ++r) {
        PerCpu<kClonesPay<T>>([&] { StepLanes<R>(acc.data(), x + base + plan.reduced.Offset(r), inner); });
      }
      T* out = y + o * inner;
      for (int64_t j = 0; j < inner; ++j) out[j] = Store<T>(R::Finish(acc[j], plan.count));
    });
  }
}

template <typename T, template <typename> class Reducer>
class ReduceKernel final : public Kernel {
 public:
  explicit ReduceKernel(ReducePlan plan) : plan_(std::move(plan)) {}

  void Run(const KernelContext& ctx) const override {
    ReduceByPlan<T, Reducer>(plan_, ctx.inputs[0].as<const T>(), ctx.outputs[0].as<T>());
  }

 private:
  ReducePlan plan_;
};

// ReduceSum: the axes are an input, read at run time. Empty axes reduce
// everything, or with noop_with_empty_axes copy x.
template <typename T>
class ReduceSumAxesInputKernel final : public Kernel {
 public:
  ReduceSumAxesInputKernel(std::string label, std::vector<int64_t> in_dims, int64_t out_elements, bool noop)
      : label_(std::move(label)), in_dims_(std::move(in_dims)), out_elements_(out_elements), noop_(noop) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const std::vector<int64_t> axes = ctx.inputs.size() > 1 && ctx.inputs[1].data != nullptr
                                          ? ReadIndexTensor(label_, ctx.inputs[1], "axes")
                                          : std::vector<int64_t>{};
    const int64_t rank = static_cast<int64_t>(in_dims_.size());
    std::vector<bool> reduced(in_dims_.size(), axes.empty() && !noop_);
    for (int64_t axis : axes) {
      const int64_t a = axis < 0 ? axis + rank : axis;
      if (a < 0 || a >= rank || reduced[a]) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: axes [{}] has an out-of-range or repeated axis for rank {}", label_,
                                fmt::join(axes, ", "), rank));
      }
      reduced[a] = true;
    }
    const int64_t kept = KeptElements(in_dims_, reduced);
    if (kept != out_elements_) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: the output has {} elements but reducing over axes "
                                                           "[{}] gives {}",
                                                           label_, out_elements_, fmt::join(axes, ", "), kept));
    }
    ReduceByPlan<T, SumReducer>(PlanReduce(in_dims_, reduced), x, y);
  }

 private:
  std::string label_;
  std::vector<int64_t> in_dims_;
  int64_t out_elements_;
  bool noop_;
};

// Every numeric dtype: ONNX's reductions take float16, bfloat16 and the 32/64-bit integers, ReduceMax/Min
// also the 8-bit ones; the 16-bit integers come at no extra cost.
using ReduceTypes = NumericTypes;

// Registers op_type with Reducer, or with the two reducers of DualImplModes
// when FastReducer is given (it serves high_performance).
template <template <typename> class Reducer, template <typename> class FastReducer = Reducer>
void RegisterReduce(KernelRegistry& registry, const std::string& op_type) {
  constexpr bool kDual = !std::is_same_v<Reducer<float>, FastReducer<float>>;
  RegisterKernel(registry, op_type, DataTypesOf(ReduceTypes{}), [](const Node& node) {
    const Shape& in = InputShape(node, 0);
    std::vector<int64_t> axes = NormalizeAxesOf(node, node.attrs().GetInts("axes"), in.rank(), "axes");
    std::vector<bool> reduced(in.rank(), axes.empty());  // no axes: reduce all
    for (int64_t axis : axes) reduced[axis] = true;
    if (KeptElements(in.dims(), reduced) != OutputShape(node, 0).NumElements()) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("output shape {} does not match reducing {} over axes [{}]", OutputShape(node, 0).ToString(),
                       in.ToString(), fmt::join(axes, ", ")));
    }
    ReducePlan plan = PlanReduce(in.dims(), reduced);
    const bool fast = kDual && WantsHighPerformance(node);
    return DispatchDtype(node, InputDtype(node, 0), ReduceTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
      using T = typename decltype(tag)::type;
      if (fast) return std::make_unique<ReduceKernel<T, FastReducer>>(plan);
      return std::make_unique<ReduceKernel<T, Reducer>>(plan);
    });
  }, kDual ? DualImplModes() : CpuImplModes());
}

std::unique_ptr<Kernel> MakeReduceSumAxesInput(const Node& node) {
  const Shape& in = InputShape(node, 0);
  const bool noop = node.attrs().GetBool("noop_with_empty_axes");
  const int64_t out_elements = OutputShape(node, 0).NumElements();
  return DispatchDtype(node, InputDtype(node, 0), ReduceTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<ReduceSumAxesInputKernel<typename decltype(tag)::type>>(node.Describe(), in.dims(),
                                                                                   out_elements, noop);
  });
}

}  // namespace

void RegisterReduceKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ReduceSum", DataTypesOf(ReduceTypes{}), MakeReduceSumAxesInput);
  RegisterReduce<SumReducer>(registry, "ReduceSumD");
  RegisterReduce<MeanReducer, FastMeanReducer>(registry, "ReduceMeanD");
  RegisterReduce<ProdReducer>(registry, "ReduceProdD");
  RegisterReduce<MaxReducer>(registry, "ReduceMaxD");
  RegisterReduce<MinReducer>(registry, "ReduceMinD");
  RegisterReduce<L1Reducer>(registry, "ReduceL1D");
  RegisterReduce<L2Reducer>(registry, "ReduceL2D");
  RegisterReduce<SumSquareReducer>(registry, "ReduceSumSquareD");
  RegisterReduce<LogSumReducer>(registry, "ReduceLogSumD");
  RegisterReduce<LogSumExpReducer>(registry, "ReduceLogSumExpD");
}

}  // namespace ge::device::cpu
