// DFT and STFT (ONNX opset 17). DFT: X[k] = sum_n x[n] e^(-2 pi i k n / L)
// along one axis, x zero-padded or cut to L = dft_length; the inverse uses
// e^(+...) and scales by 1 / L; onesided keeps k <= L / 2. STFT: the DFT of
// each windowed frame. Direct sums in double with exact twiddle angles
// (k n mod L), O(L^2) per signal.
#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// e^(-+2 pi i j / L) for j in [0, L); k n is taken mod L so that large products keep their precision.
struct Twiddles {
  Twiddles(int64_t length, bool inverse)
      : length(length), scale(inverse ? 1.0 / static_cast<double>(length) : 1.0) {
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t j = 0; j < length; ++j) {
      const double angle = 2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(length);
      cos.push_back(std::cos(angle));
      sin.push_back(sign * std::sin(angle));
    }
  }
  int64_t length;
  double scale;
  std::vector<double> cos, sin;
};

// One transform of `terms` samples in[t * stride] (1 or 2 components, each times window[t] when there is a
// window) into n_out complex outputs out[k * out_stride].
template <typename T>
void Transform(const Twiddles& tw, const T* in, int64_t stride, int64_t components, int64_t terms, const T* window,
               int64_t n_out, T* out, int64_t out_stride) {
  for (int64_t k = 0; k < n_out; ++k) {
    double re = 0, im = 0;
    for (int64_t t = 0; t < terms; ++t) {
      const T* v = in + t * stride;
      const double w = window != nullptr ? static_cast<double>(window[t]) : 1.0;
      const double a = static_cast<double>(v[0]) * w, b = components == 2 ? static_cast<double>(v[1]) * w : 0.0;
      const auto j = static_cast<size_t>((k * t) % tw.length);
      re += a * tw.cos[j] - b * tw.sin[j];
      im += a * tw.sin[j] + b * tw.cos[j];
    }
    out[k * out_stride] = static_cast<T>(re * tw.scale);
    out[k * out_stride + 1] = static_cast<T>(im * tw.scale);
  }
}

// Input i as one integer when present, else `fallback`.
int64_t OptionalScalar(const std::string& label, const KernelContext& ctx, size_t i, std::string_view what,
                       int64_t fallback) {
  if (ctx.inputs.size() <= i || ctx.inputs[i].data == nullptr) return fallback;
  return ReadIndexTensor(label, ctx.inputs[i], what)[0];
}

template <typename T>
class DftKernel final : public Kernel {
 public:
  DftKernel(const Node& node, int64_t axis)
      : label_(node.Describe()),
        inverse_(node.attrs().GetBool("inverse")),
        onesided_(node.attrs().GetBool("onesided")) {
    const std::vector<int64_t>& x = InputShape(node, 0).dims();
    outer_ = Product(std::span(x).first(axis));
    n_in_ = x[axis];
    inner_ = Product(std::span(x).subspan(axis + 1, x.size() - axis - 2));
    components_ = x.back();
    n_out_ = OutputShape(node, 0).dim(axis);
  }

  void Run(const KernelContext& ctx) const override {
    const int64_t length = OptionalScalar(label_, ctx, 1, "dft_length", n_in_);
    if (length <= 0 || (onesided_ ? length / 2 + 1 : length) != n_out_) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: dft_length {} does not give the {} outputs the node was shaped for", label_,
                              length, n_out_));
    }
    const Twiddles tw(length, inverse_);
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    for (int64_t o = 0; o < outer_; ++o) {
      for (int64_t i = 0; i < inner_; ++i) {
        Transform(tw, x + (o * n_in_ * inner_ + i) * components_, inner_ * components_, components_,
                  std::min(n_in_, length), static_cast<const T*>(nullptr), n_out_, y + (o * n_out_ * inner_ + i) * 2,
                  inner_ * 2);
      }
    }
  }

 private:
  std::string label_;
  bool inverse_, onesided_;
  int64_t outer_ = 1, n_in_ = 0, inner_ = 1, components_ = 1, n_out_ = 0;
};

// STFT: frame f of signal [batch, length, 1 or 2] is samples [f * frame_step, + frame_length), times the
// window, transformed (onesided: the first frame_length / 2 + 1 outputs) into y [batch, frames, bins, 2].
template <typename T>
class StftKernel final : public Kernel {
 public:
  explicit StftKernel(const Node& node)
      : label_(node.Describe()),
        signal_(InputShape(node, 0).dims()),
        y_(OutputShape(node, 0).dims()),
        onesided_(node.attrs().GetBool("onesided")) {}

  void Run(const KernelContext& ctx) const override {
    const int64_t step = ReadIndexTensor(label_, ctx.inputs[1], "frame_step")[0];
    const bool has_window = ctx.inputs.size() > 2 && ctx.inputs[2].data != nullptr;
    const int64_t window_length = has_window ? ctx.inputs[2].num_elements() : -1;
    const int64_t frame_length = OptionalScalar(label_, ctx, 3, "frame_length", window_length);
    if (step <= 0 || frame_length <= 0 || frame_length > signal_[1] || (has_window && window_length != frame_length) ||
        (signal_[1] - frame_length) / step + 1 != y_[1] || (onesided_ ? frame_length / 2 + 1 : frame_length) != y_[2]) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: frame_step {}, frame_length {} and a window of {} do not frame the signal into the "
                              "output the node was shaped for, {}",
                              label_, step, frame_length, window_length, Shape(y_).ToString()));
    }
    const Twiddles tw(frame_length, false);
    const int64_t components = signal_[2];
    const T* x = ctx.inputs[0].as<const T>();
    const T* window = has_window ? ctx.inputs[2].as<const T>() : nullptr;
    T* y = ctx.outputs[0].as<T>();
    for (int64_t b = 0; b < signal_[0]; ++b) {
      for (int64_t f = 0; f < y_[1]; ++f) {
        Transform(tw, x + (b * signal_[1] + f * step) * components, components, components, frame_length, window,
                  y_[2], y + (b * y_[1] + f) * y_[2] * 2, 2);
      }
    }
  }

 private:
  std::string label_;
  std::vector<int64_t> signal_, y_;
  bool onesided_;
};

std::unique_ptr<Kernel> MakeDft(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() < 2 || (x.dims().back() != 1 && x.dims().back() != 2) || y.rank() != x.rank() || y.dims().back() != 2) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("x {} must end in 1 (real) or 2 (complex) and y {} in 2", x.ToString(), y.ToString()));
  }
  const int64_t axis = NormalizeAxisOf(node, node.attrs().GetInt("axis"), x.rank(), "axis");
  if (axis == static_cast<int64_t>(x.rank()) - 1) {
    Fail(node, ErrorCode::kInvalidArgument, "attribute 'axis' must not be the last (complex) dim");
  }
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<DftKernel<typename decltype(tag)::type>>(node, axis);
  });
}

std::unique_ptr<Kernel> MakeStft(const Node& node) {
  const Shape& signal = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (signal.rank() != 3 || (signal.dim(2) != 1 && signal.dim(2) != 2) || y.rank() != 4 || y.dim(3) != 2 ||
      y.dim(0) != signal.dim(0)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("signal {} must be [batch, length, 1 or 2] and y {} [batch, frames, bins, 2]", signal.ToString(),
                     y.ToString()));
  }
  if (HasInput(node, 2) && InputDtype(node, 2) != InputDtype(node, 0)) {
    Fail(node, ErrorCode::kInvalidModel, "the window must have the signal's dtype");
  }
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<StftKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterDftKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "DFT", DataTypesOf(FloatTypes{}), MakeDft);
  RegisterKernel(registry, "STFT", DataTypesOf(FloatTypes{}), MakeStft);
}

}  // namespace ge::device::cpu
