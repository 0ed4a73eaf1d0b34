// SoftmaxV2, LogSoftmaxV2 and Hardmax over one axis (or several adjacent
// axes, treated as one). float16/bfloat16 compute in float.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

enum class Mode { kSoftmax, kLogSoftmax, kHardmax };

// x viewed as [outer, axis, inner]. Each outer block is normalized with
// passes over whole rows of `inner` elements (one element when the axis is
// the last), so every loop runs over contiguous memory.
template <typename T, Mode kMode>
class AxisNormalizeKernel final : public Kernel {
  using C = Compute<T>;

 public:
  AxisNormalizeKernel(int64_t outer, int64_t axis, int64_t inner) : outer_(outer), axis_(axis), inner_(inner) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t block = axis_ * inner_;
    if (block == 0) return;
#pragma omp parallel if (outer_ * block > kParallelGrain)
    {
      // Per-lane running max, its first index, and the sum of exponentials.
      std::vector<C> max(inner_), sum(inner_);
      std::vector<int64_t> argmax(inner_);
#pragma omp for
      for (int64_t o = 0; o < outer_; ++o) Block(x + o * block, y + o * block, max.data(), sum.data(), argmax.data());
    }
  }

 private:
  void Block(const T* x, T* y, C* max, C* sum, int64_t* argmax) const {
    const int64_t n = inner_;
    for (int64_t j = 0; j < n; ++j) {
      max[j] = Load(x[j]);
      argmax[j] = 0;
    }
    for (int64_t k = 1; k < axis_; ++k) {
      const T* row = x + k * n;
      for (int64_t j = 0; j < n; ++j) {
        const C v = Load(row[j]);
        if (v > max[j]) {
          max[j] = v;
          argmax[j] = k;
        }
      }
    }
    if constexpr (kMode == Mode::kHardmax) {
      for (int64_t k = 0; k < axis_; ++k) {
        for (int64_t j = 0; j < n; ++j) y[k * n + j] = Store<T>(C(argmax[j] == k ? 1 : 0));
      }
      return;
    }
    // Exponentials are kept in y when T is the compute type (no rounding);
    // otherwise recomputed in the last pass.
    constexpr bool kKeepExp = kMode == Mode::kSoftmax && std::is_same_v<T, C>;
    std::fill(sum, sum + n, C(0));
    for (int64_t k = 0; k < axis_; ++k) {
      for (int64_t j = 0; j < n; ++j) {
        const C e = std::exp(Load(x[k * n + j]) - max[j]);
        if constexpr (kKeepExp) y[k * n + j] = e;
        sum[j] += e;
      }
    }
    if constexpr (kMode == Mode::kLogSoftmax) {
      for (int64_t j = 0; j < n; ++j) sum[j] = max[j] + std::log(sum[j]);
      for (int64_t k = 0; k < axis_; ++k) {
        for (int64_t j = 0; j < n; ++j) y[k * n + j] = Store<T>(Load(x[k * n + j]) - sum[j]);
      }
    } else {
      for (int64_t j = 0; j < n; ++j) sum[j] = C(1) / sum[j];
      for (int64_t k = 0; k < axis_; ++k) {
        for (int64_t j = 0; j < n; ++j) {
          if constexpr (kKeepExp) {
            y[k * n + j] *= sum[j];
          } else {
            y[k * n + j] = Store<T>(std::exp(Load(x[k * n + j]) - max[j]) * sum[j]);
          }
        }
      }
    }
  }

  int64_t outer_, axis_, inner_;
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
  const auto& dims = shape.dims();
  const int64_t first = axes.empty() ? 0 : axes.front();
  const int64_t last = axes.empty() ? -1 : axes.back();
  const int64_t outer = Product(std::span(dims).first(first));
  const int64_t axis = Product(std::span(dims).subspan(first, last - first + 1));
  const int64_t inner = Product(std::span(dims).subspan(last + 1));
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<AxisNormalizeKernel<typename decltype(tag)::type, kMode>>(outer, axis, inner);
  });
}

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  const std::vector<DataType> dtypes = DataTypesOf(HalfFloatTypes{});
  RegisterKernel(registry, "SoftmaxV2", dtypes, MakeAxisNormalize<Mode::kSoftmax>);
  RegisterKernel(registry, "LogSoftmaxV2", dtypes, MakeAxisNormalize<Mode::kLogSoftmax>);
  RegisterKernel(registry, "Hardmax", dtypes, MakeAxisNormalize<Mode::kHardmax>);
}

}  // namespace ge::device::cpu
