// Resize (ONNX opset 11-13 semantics) over any axes: each output coordinate
// maps back to a real-valued input coordinate (coordinate_transformation_mode),
// whose neighbours are weighted by the mode (nearest: 1 tap, linear: 2,
// cubic: 4) with edge replication; an output element is the sum over the
// product of its axes' taps. The taps depend on scales and roi, which are read
// at run time, so they are computed per run (they are small: one list per
// output coordinate of each axis).
#include <algorithm>
#include <cmath>
#include <type_traits>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

enum class Mode { kNearest, kLinear, kCubic };
enum class Transform { kHalfPixel, kPytorchHalfPixel, kAlignCorners, kAsymmetric, kTfHalfPixelForNn, kTfCropAndResize };
enum class Rounding { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeParams {
  Mode mode = Mode::kNearest;
  Transform transform = Transform::kHalfPixel;
  Rounding rounding = Rounding::kRoundPreferFloor;
  double cubic_a = -0.75;
  bool exclude_outside = false;
  double extrapolation = 0;
};

ResizeParams ReadParams(const Node& node) {
  ResizeParams p;
  // The valid names are listed in enum order.
  p.mode = static_cast<Mode>(ChoiceIndex(node, "mode", {"nearest", "linear", "cubic"}));
  p.transform = static_cast<Transform>(ChoiceIndex(node, "coordinate_transformation_mode",
                                                   {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                                    "tf_half_pixel_for_nn", "tf_crop_and_resize"}));
  p.rounding = static_cast<Rounding>(
      ChoiceIndex(node, "nearest_mode", {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}));
  p.cubic_a = node.attrs().GetFloat("cubic_coeff_a");
  p.exclude_outside = node.attrs().GetInt("exclude_outside") != 0;
  p.extrapolation = node.attrs().GetFloat("extrapolation_value");
  return p;
}

struct Tap {
  int64_t index;
  double weight;
};
// The taps of one output coordinate; `outside` = extrapolation_value instead.
struct AxisPoint {
  std::vector<Tap> taps;
  bool outside = false;
};

// The input coordinate of output coordinate x (the ONNX reference's x_ori).
// `out_length` is scale * in_length, fractional when scales are given.
double SourceCoordinate(const ResizeParams& p, double x, double scale, int64_t in_length, double out_length,
                        double roi_start, double roi_end) {
  switch (p.transform) {
    case Transform::kHalfPixel: return (x + 0.5) / scale - 0.5;
    case Transform::kPytorchHalfPixel: return out_length == 1 ? -0.5 : (x + 0.5) / scale - 0.5;
    case Transform::kAlignCorners:
      return out_length == 1 ? 0.0 : x * static_cast<double>(in_length - 1) / (out_length - 1);
    case Transform::kAsymmetric: return x / scale;
    case Transform::kTfHalfPixelForNn: return (x + 0.5) / scale;
    case Transform::kTfCropAndResize: {
      const double span = (roi_end - roi_start) * static_cast<double>(in_length - 1);
      const double offset = out_length == 1 ? span / 2 : x * span / (out_length - 1);
      return offset + roi_start * static_cast<double>(in_length - 1);
    }
  }
  return 0;
}

std::vector<double> CubicCoefficients(double ratio, double a) {
  auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };           // |d| <= 1
  auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };       // 1 < |d| < 2
  return {far(ratio + 1), near(ratio), near(1 - ratio), far(2 - ratio)};
}

AxisPoint MakePoint(const ResizeParams& p, double x_ori, int64_t in_length) {
  AxisPoint point;
  if (p.transform == Transform::kTfCropAndResize && (x_ori < 0 || x_ori > static_cast<double>(in_length - 1))) {
    point.outside = true;
    return point;
  }
  const double base = std::floor(x_ori);
  const double ratio = x_ori - base;
  const int64_t i0 = static_cast<int64_t>(base);
  std::vector<int64_t> indices;
  std::vector<double> weights;
  switch (p.mode) {
    case Mode::kNearest: {
      bool up = false;  // take i0 + 1 rather than i0
      if (ratio != 0) {
        switch (p.rounding) {
          case Rounding::kRoundPreferFloor: up = ratio > 0.5; break;
          case Rounding::kRoundPreferCeil: up = ratio >= 0.5; break;
          case Rounding::kFloor: up = false; break;
          case Rounding::kCeil: up = true; break;
        }
      }
      indices = {up ? i0 + 1 : i0};
      weights = {1.0};
      break;
    }
    case Mode::kLinear:
      indices = {i0, i0 + 1};
      weights = {1 - ratio, ratio};
      break;
    case Mode::kCubic:
      indices = {i0 - 1, i0, i0 + 1, i0 + 2};
      weights = CubicCoefficients(ratio, p.cubic_a);
      break;
  }
  if (p.exclude_outside && p.mode != Mode::kNearest) {
    double total = 0;
    for (size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= in_length) weights[i] = 0;
      total += weights[i];
    }
    if (total != 0) {
      for (double& w : weights) w /= total;
    }
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (weights[i] == 0) continue;
    // Neighbours past the edges repeat the edge element.
    point.taps.push_back({std::clamp<int64_t>(indices[i], 0, in_length - 1), weights[i]});
  }
  // All weights zero (exclude_outside with every neighbour outside): one tap of weight 0.
  if (point.taps.empty()) point.taps.push_back({std::clamp<int64_t>(i0, 0, in_length - 1), 0.0});
  return point;
}

template <typename T>
class ResizeKernel final : public Kernel {
 public:
  ResizeKernel(std::string label, ResizeParams params, std::vector<int64_t> in_dims, std::vector<int64_t> out_dims,
               bool has_roi, bool has_scales)
      : label_(std::move(label)),
        params_(params),
        in_dims_(std::move(in_dims)),
        out_dims_(std::move(out_dims)),
        has_roi_(has_roi),
        has_scales_(has_scales) {}

  void Run(const KernelContext& ctx) const override {
    const size_t rank = in_dims_.size();
    const std::vector<double> scales = ReadFloats(ctx, 2, has_scales_);
    const std::vector<double> roi = ReadFloats(ctx, 1, has_roi_ && params_.transform == Transform::kTfCropAndResize);
    if (!scales.empty() && scales.size() != rank) Throw(fmt::format("scales has {} values; expected {}", scales.size(), rank));
    if (!roi.empty() && roi.size() != 2 * rank) Throw(fmt::format("roi has {} values; expected {}", roi.size(), 2 * rank));
    // Per axis, per output coordinate: the taps.
    std::vector<std::vector<AxisPoint>> axes(rank);
    for (size_t d = 0; d < rank; ++d) {
      const int64_t in = in_dims_[d], out = out_dims_[d];
      const double scale = scales.empty() ? static_cast<double>(out) / static_cast<double>(in) : scales[d];
      const double out_length = scales.empty() ? static_cast<double>(out) : scale * static_cast<double>(in);
      const double roi_start = roi.empty() ? 0.0 : roi[d], roi_end = roi.empty() ? 1.0 : roi[rank + d];
      for (int64_t o = 0; o < out; ++o) {
        const double x_ori = SourceCoordinate(params_, static_cast<double>(o), scale, in, out_length, roi_start,
                                              roi_end);
        axes[d].push_back(MakePoint(params_, x_ori, in));
      }
    }
    // Trailing axes that keep their length map each output element to the
    // same input element (one tap of weight 1): they form a block of
    // contiguous elements (an NHWC image's channels) interpolated together.
    size_t outer_rank = rank;
    int64_t block = 1;
    while (outer_rank > 0 && IsIdentity(axes[outer_rank - 1])) {
      block *= out_dims_[outer_rank - 1];
      --outer_rank;
    }
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const std::vector<int64_t> in_strides = RowMajorStrides(in_dims_);
    int64_t total = 1;
    for (size_t d = 0; d < outer_rank; ++d) total *= out_dims_[d];
#pragma omp parallel if (total * block > kParallelGrain / 8)
    {
      std::vector<const AxisPoint*> points(outer_rank);
      std::vector<size_t> tap(outer_rank, 0);
      std::vector<double> sum(static_cast<size_t>(block));
#pragma omp for
      for (int64_t flat = 0; flat < total; ++flat) {
        // The output's multi-index over the outer axes, then the sum over the product of their taps.
        int64_t rest = flat;
        bool outside = false;
        for (size_t d = outer_rank; d-- > 0;) {
          points[d] = &axes[d][rest % out_dims_[d]];
          rest /= out_dims_[d];
          outside = outside || points[d]->outside;
        }
        T* out = y + flat * block;
        if (outside) {
          std::fill(out, out + block, Store<T>(params_.extrapolation));
          continue;
        }
        std::fill(sum.begin(), sum.end(), 0.0);
        std::fill(tap.begin(), tap.end(), 0);
        while (true) {
          int64_t offset = 0;
          double weight = 1;
          for (size_t d = 0; d < outer_rank; ++d) {
            const Tap& t = points[d]->taps[tap[d]];
            offset += t.index * in_strides[d];
            weight *= t.weight;
          }
          const T* in = x + offset;
          for (int64_t k = 0; k < block; ++k) sum[k] += weight * static_cast<double>(Load(in[k]));
          size_t d = outer_rank;
          while (d-- > 0 && ++tap[d] == points[d]->taps.size()) tap[d] = 0;
          if (d == static_cast<size_t>(-1)) break;
        }
        for (int64_t k = 0; k < block; ++k) out[k] = Convert(sum[k]);
      }
    }
  }

 private:
  [[noreturn]] void Throw(const std::string& message) const {
    throw Error(ErrorCode::kInvalidArgument, label_ + ": " + message);
  }

  // Whether every output coordinate of the axis reads its own input coordinate alone.
  static bool IsIdentity(const std::vector<AxisPoint>& points) {
    for (size_t o = 0; o < points.size(); ++o) {
      const AxisPoint& p = points[o];
      if (p.outside || p.taps.size() != 1 || p.taps[0].index != static_cast<int64_t>(o) || p.taps[0].weight != 1.0) {
        return false;
      }
    }
    return true;
  }

  // Integer outputs round to nearest like ONNX Runtime; floats convert as is.
  static T Convert(double v) {
    if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(std::nearbyint(v));
    } else {
      return Store<T>(v);
    }
  }

  // Input i as doubles when `wanted` and present and not empty.
  std::vector<double> ReadFloats(const KernelContext& ctx, size_t i, bool wanted) const {
    std::vector<double> values;
    if (!wanted || i >= ctx.inputs.size() || ctx.inputs[i].data == nullptr) return values;
    const TensorView& view = ctx.inputs[i];
    for (int64_t k = 0; k < view.num_elements(); ++k) {
      values.push_back(view.dtype == DataType::kDouble ? view.as<const double>()[k] : view.as<const float>()[k]);
    }
    return values;
  }

  std::string label_;
  ResizeParams params_;
  std::vector<int64_t> in_dims_, out_dims_;
  bool has_roi_, has_scales_;
};

// Every numeric dtype (ONNX Resize takes any); elements are interpolated in double.
using ResizeTypes = NumericTypes;

std::unique_ptr<Kernel> MakeResize(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() != y.rank()) {
    Fail(node, ErrorCode::kInvalidArgument, fmt::format("x {} and y {} must have the same rank", x.ToString(),
                                                        y.ToString()));
  }
  for (size_t d = 0; d < x.rank(); ++d) {
    if (x.dim(d) == 0 && y.dim(d) != 0) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("cannot resize the empty axis {} of x {}", d, x.ToString()));
    }
  }
  for (size_t i : {1, 2}) {
    if (HasInput(node, i)) RequireInputDtype(node, i, {DataType::kFloat, DataType::kDouble});
  }
  const ResizeParams params = ReadParams(node);
  // Sizes, when given, win over scales: the scale is then out / in.
  const bool has_scales = HasInput(node, 2) && !HasInput(node, 3);
  return DispatchDtype(node, InputDtype(node, 0), ResizeTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<ResizeKernel<typename decltype(tag)::type>>(node.Describe(), params, x.dims(), y.dims(),
                                                                       HasInput(node, 1), has_scales);
  });
}

}  // namespace

void RegisterResizeKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Resize", DataTypesOf(ResizeTypes{}), MakeResize);
}

}  // namespace ge::device::cpu
