// BatchNorm (inference), LayerNorm, InstanceNorm and LRN. float16/bfloat16
// elements are computed on in float (statistics in double) and rounded once.
// LayerNorm's high_performance mode takes its statistics in one pass in the
// compute type instead.
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/fast_math.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/norm_layout.h"

namespace ge::device::cpu {

namespace {

// y = x * a[c] + b[c] with a = scale / sqrt(var + eps), b = offset - mean * a,
// folded per run from the four parameter inputs (C values: negligible work).
template <typename T>
class BatchNormKernel final : public Kernel {
 public:
  BatchNormKernel(int64_t batch, int64_t channels, int64_t spatial, float epsilon)
      : batch_(batch), channels_(channels), spatial_(spatial), epsilon_(epsilon) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const T* scale = ctx.inputs[1].as<const T>();
    const T* offset = ctx.inputs[2].as<const T>();
    const T* mean = ctx.inputs[3].as<const T>();
    const T* variance = ctx.inputs[4].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    using C = Compute<T>;
    std::vector<C> a(channels_), b(channels_);
    for (int64_t c = 0; c < channels_; ++c) {
      a[c] = Load(scale[c]) / std::sqrt(Load(variance[c]) + static_cast<C>(epsilon_));
      b[c] = Load(offset[c]) - Load(mean[c]) * a[c];
    }
    const int64_t planes = batch_ * channels_;
    ParallelFor(planes, planes * spatial_ > kParallelGrain, [&](int64_t p) {
      const int64_t c = p % channels_;
      const T* in = x + p * spatial_;
      T* out = y + p * spatial_;
      const C ac = a[c], bc = b[c];
      for (int64_t i = 0; i < spatial_; ++i) out[i] = Store<T>(Load(in[i]) * ac + bc);
    });
  }

 private:
  int64_t batch_, channels_, spatial_;
  float epsilon_;
};

// Mean and (biased) variance of n elements, two passes in double so that
// large offsets do not swamp the variance.
struct Moments {
  double mean;
  double variance;
};

template <typename T>
[[gnu::always_inline]] inline Moments ComputeMoments(const T* in, int64_t n) {
  double sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t i = 0; i < n; ++i) sum += static_cast<double>(Load(in[i]));
  const double mean = sum / static_cast<double>(n);
  double squares = 0;
#pragma omp simd reduction(+ : squares)
  for (int64_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(Load(in[i])) - mean;
    squares += d * d;
  }
  return {mean, squares / static_cast<double>(n)};
}

// LayerNorm's high_performance statistics: one pass of sums and sums of
// squares in the compute type, variance = E[d^2] - E[d]^2. The d are taken
// from the first element, not from 0, so that a mean large against the
// spread does not cancel the variance away.
template <typename T>
[[gnu::always_inline]] inline Moments ComputeMomentsFast(const T* in, int64_t n) {
  using C = Compute<T>;
  const C shift = Load(in[0]);
  C sum = 0, squares = 0;
#pragma omp simd reduction(+ : sum, squares)
  for (int64_t i = 0; i < n; ++i) {
    const C d = Load(in[i]) - shift;
    sum += d;
    squares += d * d;
  }
  const C mean_d = sum / static_cast<C>(n);
  return {shift + mean_d, std::max(C(0), squares / static_cast<C>(n) - mean_d * mean_d)};
}

// One LayerNorm row of `cols` elements: its statistics (returned for the
// optional mean and variance outputs), then y. gamma and beta cover the
// trailing `params` elements of the rows' index space and the row starts at
// element `param_base` of them (0 in the usual params == cols case). kFast:
// high_performance (the one-pass statistics above and FastRsqrt); otherwise
// two passes in double, and the normalization in double.
template <typename T, bool kFast>
Moments LayerNormRow(const T* in, T* out, const T* gamma, const T* beta, int64_t cols, int64_t params,
                                   int64_t param_base, float epsilon) {
  const Moments moments = kFast ? ComputeMomentsFast(in, cols) : ComputeMoments(in, cols);
  using C = std::conditional_t<kFast, Compute<T>, double>;
  C inv_std;
  if constexpr (kFast && std::is_same_v<C, float>) {
    inv_std = FastRsqrt(static_cast<float>(moments.variance) + epsilon);
  } else {
    inv_std = static_cast<C>(1.0 / std::sqrt(moments.variance + epsilon));
  }
  const C m = static_cast<C>(moments.mean);
  auto in_c = [](T v) { return static_cast<C>(Load(v)); };
  if (params == cols) {
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) out[c] = Store<T>((in_c(in[c]) - m) * inv_std * in_c(gamma[c]) + in_c(beta[c]));
  } else {
    for (int64_t c = 0; c < cols; ++c) {
      const int64_t p = (param_base + c) % params;
      out[c] = Store<T>((in_c(in[c]) - m) * inv_std * in_c(gamma[p]) + in_c(beta[p]));
    }
  }
  return moments;
}

// x viewed as [rows, cols] with cols = the normalized axes, one LayerNormRow
// per row.
template <typename T, bool kFast>
class LayerNormKernel final : public Kernel {
 public:
  LayerNormKernel(int64_t rows, int64_t cols, int64_t params, float epsilon)
      : rows_(rows), cols_(cols), params_(params), epsilon_(epsilon) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const T* gamma = ctx.inputs[1].as<const T>();
    const T* beta = ctx.inputs[2].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    T* mean_out = ctx.outputs.size() > 1 ? ctx.outputs[1].as<T>() : nullptr;
    T* var_out = ctx.outputs.size() > 2 ? ctx.outputs[2].as<T>() : nullptr;
    ParallelFor(rows_, rows_ * cols_ > kParallelGrain, [&](int64_t r) {
      const Moments moments = PerCpu([&] {
        return LayerNormRow<T, kFast>(x + r * cols_, y + r * cols_, gamma, beta, cols_, params_, (r * cols_) % params_,
                                      epsilon_);
      });
      // The stored mean is the one the row was normalized with.
      using C = std::conditional_t<kFast, Compute<T>, double>;
      if (mean_out != nullptr) mean_out[r] = Store<T>(static_cast<C>(moments.mean));
      if (var_out != nullptr) var_out[r] = Store<T>(moments.variance);
    });
  }

 private:
  int64_t rows_, cols_, params_;
  float epsilon_;
};

std::unique_ptr<Kernel> MakeLayerNorm(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const int64_t norm_axis = NormalizeAxisOf(node, node.attrs().GetInt("begin_norm_axis"), x.rank(),
                                            "begin_norm_axis");
  const auto& dims = x.dims();
  const int64_t rows = Product(std::span(dims).first(norm_axis));
  const int64_t cols = Product(std::span(dims).subspan(norm_axis));
  // gamma and beta must equal trailing dims of x (leading 1s allowed).
  for (size_t i : {1, 2}) {
    const Shape& param = InputShape(node, i);
    bool trailing = param.rank() <= x.rank();
    for (size_t d = 0; trailing && d < param.rank(); ++d) {
      const size_t xd = x.rank() - param.rank() + d;
      trailing = param.dim(d) == x.dim(xd) || (param.dim(d) == 1 && static_cast<int64_t>(xd) < norm_axis);
    }
    trailing = trailing && InputShape(node, i).NumElements() == InputShape(node, 1).NumElements();
    if (!trailing || InputDtype(node, i) != InputDtype(node, 0)) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("input {} ({}) is {} {}; it must have x's dtype and trailing dims of x {}", i,
                       i == 1 ? "gamma" : "beta", DataTypeName(InputDtype(node, i)), param.ToString(), x.ToString()));
    }
  }
  int64_t params = InputShape(node, 1).NumElements();
  if (params == 0) Fail(node, ErrorCode::kInvalidArgument, "gamma is empty");
  for (size_t i = 1; i < node.num_outputs(); ++i) {
    if (OutputShape(node, i).NumElements() != rows) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("output {} has shape {}; it must hold one value per normalized row ({})", i,
                       OutputShape(node, i).ToString(), rows));
    }
  }
  const float epsilon = node.attrs().GetFloat("epsilon");
  const bool fast = WantsHighPerformance(node);
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    if (fast) return std::make_unique<LayerNormKernel<T, true>>(rows, cols, params, epsilon);
    return std::make_unique<LayerNormKernel<T, false>>(rows, cols, params, epsilon);
  });
}

// Each of the batch * channels planes is normalized over its `spatial`
// elements (mean and variance in double), then scaled by gamma[c] + beta[c].
template <typename T>
class InstanceNormKernel final : public Kernel {
 public:
  InstanceNormKernel(int64_t batch, int64_t channels, int64_t spatial, float epsilon)
      : batch_(batch), channels_(channels), spatial_(spatial), epsilon_(epsilon) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const T* gamma = ctx.inputs[1].as<const T>();
    const T* beta = ctx.inputs[2].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t planes = batch_ * channels_;
    ParallelFor(planes, planes * spatial_ > kParallelGrain, [&](int64_t p) {
      const int64_t c = p % channels_;
      const T* in = x + p * spatial_;
      T* out = y + p * spatial_;
      const auto [mean, variance] = ComputeMoments(in, spatial_);
      const double scale = static_cast<double>(Load(gamma[c])) / std::sqrt(variance + epsilon_);
      const double shift = static_cast<double>(Load(beta[c])) - mean * scale;
      for (int64_t i = 0; i < spatial_; ++i) out[i] = Store<T>(static_cast<double>(Load(in[i])) * scale + shift);
    });
  }

 private:
  int64_t batch_, channels_, spatial_;
  float epsilon_;
};

// BatchNorm and InstanceNorm: the kernels index the parameters by channel, so
// the node's layout rule is checked here too, with every dim and dtype known.
template <template <typename> class NormKernel>
std::unique_ptr<Kernel> MakeChannelNorm(const Node& node) {
  const int64_t channels = CheckChannelNorm(node, NormUnknowns::kFail);
  const Shape& x = InputShape(node, 0);
  const int64_t spatial = Product(std::span(x.dims()).subspan(2));
  const float epsilon = node.attrs().GetFloat("epsilon");
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<NormKernel<typename decltype(tag)::type>>(x.dim(0), channels, spatial, epsilon);
  });
}

// y = x / (bias + alpha * sum over the channel window of x^2)^beta, the window
// being [c - radius, c + radius] clipped to the channels (alpha is not divided
// by the window size: the translator from ONNX does that).
template <typename T>
class LrnKernel final : public Kernel {
 public:
  // A radius beyond the channels is clipped like the windows themselves.
  LrnKernel(int64_t batch, int64_t channels, int64_t spatial, int64_t radius, double bias, double alpha, double beta)
      : batch_(batch), channels_(channels), spatial_(spatial),
        radius_(std::min(radius, std::max<int64_t>(channels - 1, 0))), bias_(bias), alpha_(alpha), beta_(beta) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    if (radius_ <= kDirectRadius) {
      SumWindows(x, y);
    } else {
      SlideWindows(x, y);
    }
  }

 private:
  // Windows this narrow (all real models: size 5 or so) are summed directly,
  // as the reference does; wider ones, which a hostile `size` can stretch
  // over every channel, slide a running sum down the channels so the work
  // stays linear in x.
  static constexpr int64_t kDirectRadius = 16;

  T Normalized(const T* image, int64_t c, int64_t i, double squares) const {
    return Store<T>(static_cast<double>(Load(image[c * spatial_ + i])) / std::pow(bias_ + alpha_ * squares, beta_));
  }

  double Square(const T* image, int64_t c, int64_t i) const {
    const double v = static_cast<double>(Load(image[c * spatial_ + i]));
    return v * v;
  }

  void SumWindows(const T* x, T* y) const {
    const int64_t planes = batch_ * channels_;
    ParallelFor(planes, planes * spatial_ * (2 * radius_ + 1) > kParallelGrain, [&](int64_t p) {
      const int64_t n = p / channels_, c = p % channels_;
      const T* image = x + n * channels_ * spatial_;
      const int64_t first = std::max<int64_t>(c - radius_, 0);
      const int64_t last = std::min(c + radius_, channels_ - 1);
      for (int64_t i = 0; i < spatial_; ++i) {
        double squares = 0;
        for (int64_t k = first; k <= last; ++k) squares += Square(image, k, i);
        y[p * spatial_ + i] = Normalized(image, c, i, squares);
      }
    });
  }

  void SlideWindows(const T* x, T* y) const {
    const int64_t columns = batch_ * spatial_;
    ParallelFor(columns, columns * channels_ > kParallelGrain, [&](int64_t column) {
      const int64_t n = column / spatial_, i = column % spatial_;
      const T* image = x + n * channels_ * spatial_;
      T* out = y + n * channels_ * spatial_;
      double squares = 0;  // the window of channel 0: [0, radius]
      for (int64_t k = 0; k <= radius_; ++k) squares += Square(image, k, i);
      for (int64_t c = 0; c < channels_; ++c) {
        out[c * spatial_ + i] = Normalized(image, c, i, squares);
        if (c + radius_ + 1 < channels_) squares += Square(image, c + radius_ + 1, i);
        if (c - radius_ >= 0) squares -= Square(image, c - radius_, i);
      }
    });
  }

  int64_t batch_, channels_, spatial_, radius_;
  double bias_, alpha_, beta_;
};

std::unique_ptr<Kernel> MakeLrn(const Node& node) {
  const Shape& x = InputShape(node, 0);
  if (x.rank() < 2) Fail(node, ErrorCode::kInvalidArgument, fmt::format("x must have rank >= 2, got {}", x.ToString()));
  if (node.attrs().GetString("norm_region") != "ACROSS_CHANNELS") {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("attribute 'norm_region' is '{}'; valid: ACROSS_CHANNELS", node.attrs().GetString("norm_region")));
  }
  const int64_t radius = node.attrs().GetInt("depth_radius");
  if (radius < 0) Fail(node, ErrorCode::kInvalidArgument, "attribute 'depth_radius' must be >= 0");
  const int64_t spatial = Product(std::span(x.dims()).subspan(2));
  const double bias = node.attrs().GetFloat("bias"), alpha = node.attrs().GetFloat("alpha");
  const double beta = node.attrs().GetFloat("beta");
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<LrnKernel<typename decltype(tag)::type>>(x.dim(0), x.dim(1), spatial, radius, bias, alpha,
                                                                    beta);
  });
}

}  // namespace

void RegisterNormalizationKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "BatchNorm", DataTypesOf(HalfFloatTypes{}), MakeChannelNorm<BatchNormKernel>);
  RegisterKernel(registry, "LayerNorm", DataTypesOf(HalfFloatTypes{}), MakeLayerNorm, DualImplModes());
  RegisterKernel(registry, "InstanceNorm", DataTypesOf(HalfFloatTypes{}), MakeChannelNorm<InstanceNormKernel>);
  RegisterKernel(registry, "LRN", DataTypesOf(HalfFloatTypes{}), MakeLrn);
}

}  // namespace ge::device::cpu
