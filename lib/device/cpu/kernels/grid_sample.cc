// GridSampler2D (ONNX GridSample, opset 16): y[n, c, i, j] samples x[n, c] at
// the normalized position grid[n, i, j] = (x, y) in [-1, 1], with bilinear,
// nearest or bicubic interpolation and zeros, border or reflection padding.
// The rules (when coordinates are clamped or reflected, nearest rounding half
// to even, the cubic coefficient -0.75) are those of the ONNX reference.
// Computed in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

enum class Interpolation { kBilinear, kNearest, kBicubic };
enum class Padding { kZeros, kBorder, kReflection };

// v reflected into [lo, hi] by bouncing off both ends.
double Reflect(double v, double lo, double hi) {
  const double range = hi - lo;
  if (range <= 0) return lo;
  if (v < lo) {
    const double d = lo - v;
    const double n = std::floor(d / range), r = d - n * range;
    return std::fmod(n, 2.0) == 0 ? lo + r : hi - r;
  }
  if (v > hi) {
    const double d = v - hi;
    const double n = std::floor(d / range), r = d - n * range;
    return std::fmod(n, 2.0) == 0 ? hi - r : lo + r;
  }
  return v;
}

// Weights of the 4 taps at offsets -1, 0, 1, 2 for a fraction t in [0, 1) (cubic convolution, a = -0.75).
std::array<double, 4> CubicCoefficients(double t) {
  constexpr double a = -0.75;
  auto near = [](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };        // |d| <= 1
  auto far = [](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
  return {far(t + 1), near(t), near(1 - t), far(2 - t)};
}

// One image plane with its padding rule.
template <typename T>
struct Plane {
  const T* data;
  int64_t height, width;
  Padding padding;
  double x_min, x_max, y_min, y_max;  // the valid coordinate range (depends on align_corners)

  double At(int64_t r, int64_t c) const {
    switch (padding) {
      case Padding::kZeros:
        if (r < 0 || r >= height || c < 0 || c >= width) return 0.0;
        break;
      case Padding::kBorder:
        r = std::clamp<int64_t>(r, 0, height - 1);
        c = std::clamp<int64_t>(c, 0, width - 1);
        break;
      case Padding::kReflection:
        r = std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(r), y_min, y_max)), 0, height - 1);
        c = std::clamp<int64_t>(static_cast<int64_t>(Reflect(static_cast<double>(c), x_min, x_max)), 0, width - 1);
        break;
    }
    return static_cast<double>(data[r * width + c]);
  }
};

template <typename T, typename G>
class GridSampleKernel final : public Kernel {
 public:
  GridSampleKernel(const Node& node, Interpolation interpolation, Padding padding)
      : x_dims_(InputShape(node, 0).dims()),
        y_dims_(OutputShape(node, 0).dims()),
        interpolation_(interpolation),
        padding_(padding),
        align_corners_(node.attrs().GetBool("align_corners")) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const G* grid = ctx.inputs[1].as<const G>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t batch = x_dims_[0], channels = x_dims_[1], height = x_dims_[2], width = x_dims_[3];
    const int64_t out_h = y_dims_[2], out_w = y_dims_[3];
    if (height == 0 || width == 0) {  // no pixel to sample or pad from
      std::fill(y, y + batch * channels * out_h * out_w, static_cast<T>(0.0));
      return;
    }
    // align_corners: -1 and 1 are the centres of the corner pixels, else their outer edges.
    const double lo = align_corners_ ? 0.0 : -0.5;
    const Plane<T> image{nullptr, height, width, padding_, lo, static_cast<double>(width - 1) - lo, lo,
                         static_cast<double>(height - 1) - lo};
    auto denormalize = [&](double v, int64_t size) {
      return align_corners_ ? (v + 1) / 2 * static_cast<double>(size - 1)
                            : ((v + 1) * static_cast<double>(size) - 1) / 2;
    };
#pragma omp parallel for collapse(2) if (batch * channels * out_h * out_w > kParallelGrain / 16)
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t i = 0; i < out_h; ++i) {
        Plane<T> plane = image;
        for (int64_t j = 0; j < out_w; ++j) {
          const G* g = grid + ((n * out_h + i) * out_w + j) * 2;
          double gx = denormalize(static_cast<double>(g[0]), width);
          double gy = denormalize(static_cast<double>(g[1]), height);
          if (interpolation_ == Interpolation::kNearest) {
            gx = std::nearbyint(gx);  // half to even
            gy = std::nearbyint(gy);
          }
          if (gx < plane.x_min || gx > plane.x_max || gy < plane.y_min || gy > plane.y_max) {
            if (padding_ == Padding::kBorder) {
              gx = std::clamp(gx, 0.0, static_cast<double>(width - 1));
              gy = std::clamp(gy, 0.0, static_cast<double>(height - 1));
            } else if (padding_ == Padding::kReflection) {
              gx = Reflect(gx, plane.x_min, plane.x_max);
              gy = Reflect(gy, plane.y_min, plane.y_max);
            }
          }
          if (std::isnan(gx) || std::isnan(gy)) {  // a NaN (or, reflected, infinite) grid point samples NaN
            for (int64_t c = 0; c < channels; ++c) {
              y[((n * channels + c) * out_h + i) * out_w + j] = static_cast<T>(std::numeric_limits<double>::quiet_NaN());
            }
            continue;
          }
          // Far outside (zeros padding), every tap is outside: clamping keeps
          // that and keeps the coordinates within int64.
          gx = std::clamp(gx, -8.0, static_cast<double>(width) + 8);
          gy = std::clamp(gy, -8.0, static_cast<double>(height) + 8);
          for (int64_t c = 0; c < channels; ++c) {
            plane.data = x + (n * channels + c) * height * width;
            y[((n * channels + c) * out_h + i) * out_w + j] = static_cast<T>(Sample(plane, gx, gy));
          }
        }
      }
    }
  }

 private:
  double Sample(const Plane<T>& plane, double gx, double gy) const {
    switch (interpolation_) {
      case Interpolation::kNearest:
        return plane.At(static_cast<int64_t>(gy), static_cast<int64_t>(gx));
      case Interpolation::kBilinear: {
        const auto x0 = static_cast<int64_t>(std::floor(gx)), y0 = static_cast<int64_t>(std::floor(gy));
        const double fx = gx - static_cast<double>(x0), fy = gy - static_cast<double>(y0);
        return (1 - fy) * ((1 - fx) * plane.At(y0, x0) + fx * plane.At(y0, x0 + 1)) +
               fy * ((1 - fx) * plane.At(y0 + 1, x0) + fx * plane.At(y0 + 1, x0 + 1));
      }
      case Interpolation::kBicubic: {
        const auto x0 = static_cast<int64_t>(std::floor(gx)), y0 = static_cast<int64_t>(std::floor(gy));
        const auto wx = CubicCoefficients(gx - static_cast<double>(x0));
        const auto wy = CubicCoefficients(gy - static_cast<double>(y0));
        double result = 0;
        for (int64_t r = 0; r < 4; ++r) {
          double row = 0;
          for (int64_t c = 0; c < 4; ++c) row += wx[c] * plane.At(y0 - 1 + r, x0 - 1 + c);
          result += wy[r] * row;
        }
        return result;
      }
    }
    return 0.0;
  }

  std::vector<int64_t> x_dims_, y_dims_;
  Interpolation interpolation_;
  Padding padding_;
  bool align_corners_;
};

std::unique_ptr<Kernel> MakeGridSample(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& grid = InputShape(node, 1);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() != 4 || grid.rank() != 4 || grid.dim(3) != 2 || grid.dim(0) != x.dim(0) || y.rank() != 4 ||
      y.dim(2) != grid.dim(1) || y.dim(3) != grid.dim(2)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("x {} must be NCHW, grid {} [N, H_out, W_out, 2] and y {} [N, C, H_out, W_out]", x.ToString(),
                     grid.ToString(), y.ToString()));
  }
  const auto interpolation =
      static_cast<Interpolation>(ChoiceIndex(node, "interpolation_mode", {"bilinear", "nearest", "bicubic"}));
  const auto padding = static_cast<Padding>(ChoiceIndex(node, "padding_mode", {"zeros", "border", "reflection"}));
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto x_tag) -> std::unique_ptr<Kernel> {
    return DispatchDtype(node, InputDtype(node, 1), FloatTypes{}, [&](auto grid_tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<GridSampleKernel<typename decltype(x_tag)::type, typename decltype(grid_tag)::type>>(
          node, interpolation, padding);
    });
  });
}

}  // namespace

void RegisterGridSampleKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "GridSampler2D", DataTypesOf(FloatTypes{}), MakeGridSample);
}

}  // namespace ge::device::cpu
