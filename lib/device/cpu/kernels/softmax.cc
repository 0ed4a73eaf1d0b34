// SoftmaxV2 over one axis (or several adjacent axes, treated as one).
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// x viewed as [outer, axis, inner].
template <typename T>
class SoftmaxKernel final : public Kernel {
 public:
  SoftmaxKernel(int64_t outer, int64_t axis, int64_t inner) : outer_(outer), axis_(axis), inner_(inner) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    if (inner_ == 1) {
#pragma omp parallel for if (outer_ * axis_ > kParallelGrain)
      for (int64_t o = 0; o < outer_; ++o) SoftmaxRow(x + o * axis_, y + o * axis_);
    } else {
#pragma omp parallel for if (outer_ * axis_ * inner_ > kParallelGrain)
      for (int64_t o = 0; o < outer_; ++o) SoftmaxStrided(x + o * axis_ * inner_, y + o * axis_ * inner_);
    }
  }

 private:
  // Contiguous axis: max, exp and sum, scale.
  void SoftmaxRow(const T* x, T* y) const {
    T max = -std::numeric_limits<T>::infinity();
    for (int64_t k = 0; k < axis_; ++k) max = std::max(max, x[k]);
    T sum = 0;
    for (int64_t k = 0; k < axis_; ++k) {
      y[k] = std::exp(x[k] - max);
      sum += y[k];
    }
    const T scale = T(1) / sum;
    for (int64_t k = 0; k < axis_; ++k) y[k] *= scale;
  }

  // Axis with stride inner_: the same three passes, each over whole rows of
  // inner_ elements so the loops stay contiguous.
  void SoftmaxStrided(const T* x, T* y) const {
    std::vector<T> max(x, x + inner_);
    for (int64_t k = 1; k < axis_; ++k) {
      const T* row = x + k * inner_;
      for (int64_t j = 0; j < inner_; ++j) max[j] = std::max(max[j], row[j]);
    }
    std::vector<T> sum(inner_, T(0));
    for (int64_t k = 0; k < axis_; ++k) {
      const T* in = x + k * inner_;
      T* out = y + k * inner_;
      for (int64_t j = 0; j < inner_; ++j) {
        out[j] = std::exp(in[j] - max[j]);
        sum[j] += out[j];
      }
    }
    for (int64_t j = 0; j < inner_; ++j) sum[j] = T(1) / sum[j];
    for (int64_t k = 0; k < axis_; ++k) {
      T* out = y + k * inner_;
      for (int64_t j = 0; j < inner_; ++j) out[j] *= sum[j];
    }
  }

  int64_t outer_, axis_, inner_;
};

std::unique_ptr<Kernel> MakeSoftmax(const Node& node) {
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
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<SoftmaxKernel<typename decltype(tag)::type>>(outer, axis, inner);
  });
}

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "SoftmaxV2", DataTypesOf(FloatTypes{}), MakeSoftmax);
}

}  // namespace ge::device::cpu
