// SoftmaxV2, LogSoftmaxV2 and Hardmax over one axis (or several adjacent
// axes, treated as one). float16/bfloat16 compute in float. SoftmaxV2 and
// LogSoftmaxV2 have two implementations: high_precision (the default)
// computes in double (float results with wide_math.h's WideExp);
// high_performance uses FastExp/FastLog (fast_math.h) and sums in the
// compute type.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include <omp.h>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/fast_math.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/wide_math.h"

namespace ge::device::cpu {

namespace {

enum class Mode { kSoftmax, kLogSoftmax, kHardmax };

// The arithmetic of one (dtype, mode, implementation): high_precision
// computes in double, high_performance in the compute type with the
// fast_math.h functions (float only).
template <typename T, Mode kMode, bool kFast>
struct Normalize {
  using C = std::conditional_t<kFast, Compute<T>, double>;
  static C In(T v) { return static_cast<C>(Load(v)); }

  // e^x: float results come from WideExp (1e-14 relative before their
  // rounding, and it vectorizes); float64 ones keep libm.
  [[gnu::always_inline]] static C Exp(C x) {
    if constexpr (kFast && std::is_same_v<C, float>) {
      return FastExp(x);
    } else if constexpr (std::is_same_v<T, double>) {
      return std::exp(x);
    } else {
      return WideExp(x);
    }
  }
  static C Log(C x) {
    if constexpr (kFast && std::is_same_v<C, float>) {
      return FastLog(x);
    } else {
      return std::log(x);
    }
  }

  // Exponentials are kept in y when T is the compute type (no rounding);
  // otherwise recomputed in the last pass.
  static constexpr bool kKeepExp = kMode == Mode::kSoftmax && std::is_same_v<T, C>;
};

// The normalized axis is the last one (the common case): one contiguous row
// of `axis` elements, reduced with SIMD reductions. A NaN anywhere in the
// row makes the sum, and so every output, NaN.
template <typename T, Mode kMode, bool kFast>
void NormalizeRow(const T* x, T* y, int64_t axis) {
  using N = Normalize<T, kMode, kFast>;
  using C = typename N::C;
  C max = N::In(x[0]);
#pragma omp simd reduction(max : max)
  for (int64_t k = 1; k < axis; ++k) max = std::max(max, N::In(x[k]));
  C sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t k = 0; k < axis; ++k) {
    const C e = N::Exp(N::In(x[k]) - max);
    if constexpr (N::kKeepExp) y[k] = e;
    sum += e;
  }
  if constexpr (kMode == Mode::kLogSoftmax) {
    const C shift = max + N::Log(sum);
#pragma omp simd
    for (int64_t k = 0; k < axis; ++k) y[k] = Store<T>(N::In(x[k]) - shift);
  } else {
    const C scale = C(1) / sum;
#pragma omp simd
    for (int64_t k = 0; k < axis; ++k) {
      if constexpr (N::kKeepExp) {
        y[k] *= scale;
      } else {
        y[k] = Store<T>(N::Exp(N::In(x[k]) - max) * scale);
      }
    }
  }
}

// One [axis, inner] block normalized along axis with passes over whole rows
// of `inner` lanes; max, sum and argmax hold `inner` values each.
template <typename T, Mode kMode, bool kFast, typename C = typename Normalize<T, kMode, kFast>::C>
void NormalizeBlock(const T* x, T* y, int64_t axis, int64_t inner, C* max, C* sum, int64_t* argmax) {
  using N = Normalize<T, kMode, kFast>;
  const int64_t n = inner;
  for (int64_t j = 0; j < n; ++j) {
    max[j] = N::In(x[j]);
    argmax[j] = 0;
  }
  for (int64_t k = 1; k < axis; ++k) {
    const T* row = x + k * n;
    for (int64_t j = 0; j < n; ++j) {
      const C v = N::In(row[j]);
      if (v > max[j]) {
        max[j] = v;
        argmax[j] = k;
      }
    }
  }
  if constexpr (kMode == Mode::kHardmax) {
    for (int64_t k = 0; k < axis; ++k) {
      for (int64_t j = 0; j < n; ++j) y[k * n + j] = Store<T>(C(argmax[j] == k ? 1 : 0));
    }
    return;
  }
  std::fill(sum, sum + n, C(0));
  for (int64_t k = 0; k < axis; ++k) {
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const C e = N::Exp(N::In(x[k * n + j]) - max[j]);
      if constexpr (N::kKeepExp) y[k * n + j] = e;
      sum[j] += e;
    }
  }
  if constexpr (kMode == Mode::kLogSoftmax) {
    for (int64_t j = 0; j < n; ++j) max[j] += N::Log(sum[j]);
    for (int64_t k = 0; k < axis; ++k) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) y[k * n + j] = Store<T>(N::In(x[k * n + j]) - max[j]);
    }
  } else {
    for (int64_t j = 0; j < n; ++j) sum[j] = C(1) / sum[j];
    for (int64_t k = 0; k < axis; ++k) {
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) {
        if constexpr (N::kKeepExp) {
          y[k * n + j] *= sum[j];
        } else {
          y[k * n + j] = Store<T>(N::Exp(N::In(x[k * n + j]) - max[j]) * sum[j]);
        }
      }
    }
  }
}

// x viewed as [outer, axis, inner] around the normalized axes
// [first, last], from the shape of each run (one kernel serves every length
// of a growing attention row); each outer block is normalized on its own, so
// every loop runs over contiguous memory.
template <typename T, Mode kMode, bool kFast>
class AxisNormalizeKernel final : public Kernel {
  using C = typename Normalize<T, kMode, kFast>::C;

 public:
  AxisNormalizeKernel(int64_t first, int64_t last) : first_(first), last_(last) {}

  bool TakesShapesAtRun() const override { return true; }

  void Run(const KernelContext& ctx) const override {
    const std::span<const int64_t> dims(ctx.inputs[0].shape->dims());
    const int64_t outer = Product(dims.first(first_));
    const int64_t axis = Product(dims.subspan(first_, last_ - first_ + 1));
    const int64_t inner = Product(dims.subspan(last_ + 1));
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t block = axis * inner;
    if (block == 0) return;
    const bool parallel = outer * block > kParallelGrain;
    if (kMode != Mode::kHardmax && inner == 1) {
      ParallelFor(outer, parallel, [&](int64_t o) {
        PerCpu([&] { NormalizeRow<T, kMode, kFast>(x + o * block, y + o * block, axis); });
      });
      return;
    }
    // Per-lane running max, its first index, and the sum of exponentials (one set per thread).
    auto blocks = [&](int64_t begin, int64_t end) {
      std::vector<C> max(inner);
      std::vector<C> sum(inner);
      std::vector<int64_t> argmax(inner);
      for (int64_t o = begin; o < end; ++o) {
        PerCpu([&] {
          NormalizeBlock<T, kMode, kFast>(x + o * block, y + o * block, axis, inner, max.data(), sum.data(),
                                          argmax.data());
        });
      }
    };
    if (!parallel) return blocks(0, outer);
#pragma omp parallel
    {
      const int64_t threads = omp_get_num_threads(), thread = omp_get_thread_num();
      blocks(outer * thread / threads, outer * (thread + 1) / threads);
    }
  }

 private:
  int64_t first_, last_;  // the normalized axes; last_ = first_ - 1 for a scalar
};

template <Mode kMode>
std::unique_ptr<Kernel> MakeAxisNormalize(const Node& node) {
  const Shape& shape = InputShape(node, 0);
  std::vector<int64_t> axes = NormalizeAxesOf(node, node.attrs().GetInts("axes"), shape.rank(), "axes");
  if (axes.empty() && shape.rank() > 0) {
    Fail(node, ErrorCode::kInvalidArgument, "attribute 'axes' is empty");
  }
  std::sort(axes.begin(), axes.end());
  if (!axes.empty() && axes.back() - axes.front() + 1 != static_cast<int64_t>(axes.size())) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'axes' = [{}] must name adjacent axes", fmt::join(axes, ", ")));
  }
  const int64_t first = axes.empty() ? 0 : axes.front();
  const int64_t last = axes.empty() ? -1 : axes.back();
  const bool fast = kMode != Mode::kHardmax && WantsHighPerformance(node);
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    if (fast) return std::make_unique<AxisNormalizeKernel<T, kMode, true>>(first, last);
    return std::make_unique<AxisNormalizeKernel<T, kMode, false>>(first, last);
  });
}

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  const std::vector<DataType> dtypes = DataTypesOf(HalfFloatTypes{});
  RegisterKernel(registry, "SoftmaxV2", dtypes, MakeAxisNormalize<Mode::kSoftmax>, DualImplModes());
  RegisterKernel(registry, "LogSoftmaxV2", dtypes, MakeAxisNormalize<Mode::kLogSoftmax>, DualImplModes());
  RegisterKernel(registry, "Hardmax", dtypes, MakeAxisNormalize<Mode::kHardmax>);
}

}  // namespace ge::device::cpu
