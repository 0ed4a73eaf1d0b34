// ROIAlign (ONNX RoiAlign): each roi of its image, scaled by spatial_scale,
// is cut into pooled_height x pooled_width bins; a bin is the average (or
// max) of a grid of bilinear samples. Sampling follows the ONNX reference:
// samples more than one pixel outside the image count as 0, others clamp to
// the edge; "max" takes the largest weighted corner of each sample.
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

// One bilinear sample: four plane offsets and their weights.
struct Sample {
  std::array<int64_t, 4> pos{};
  std::array<double, 4> w{};
};

// The image is not empty (Run handles that).
Sample BilinearSample(double y, double x, int64_t height, int64_t width) {
  Sample s;
  if (std::isnan(y) || std::isnan(x)) {  // a NaN roi or scale: the bin becomes NaN, as in the reference
    s.w.fill(std::numeric_limits<double>::quiet_NaN());
    return s;
  }
  if (y < -1.0 || y > static_cast<double>(height) || x < -1.0 || x > static_cast<double>(width)) return s;
  y = std::max(y, 0.0);
  x = std::max(x, 0.0);
  auto low_high = [](double& v, int64_t size) {
    auto low = static_cast<int64_t>(v);
    if (low >= size - 1) {
      v = static_cast<double>(size - 1);
      return std::array<int64_t, 2>{size - 1, size - 1};
    }
    return std::array<int64_t, 2>{low, low + 1};
  };
  const auto [y_low, y_high] = low_high(y, height);
  const auto [x_low, x_high] = low_high(x, width);
  const double ly = y - static_cast<double>(y_low), lx = x - static_cast<double>(x_low);
  const double hy = 1 - ly, hx = 1 - lx;
  s.pos = {y_low * width + x_low, y_low * width + x_high, y_high * width + x_low, y_high * width + x_high};
  s.w = {hy * hx, hy * lx, ly * hx, ly * lx};
  return s;
}

// Bilinear samples one roi may take (64 bytes each): far above any real
// detector (7x7 bins of 2x2 samples, or adaptive grids over a large image),
// low enough that a hostile roi or sample_num fails instead of exhausting memory.
constexpr int64_t kMaxSamplesPerRoi = int64_t{1} << 26;

template <typename T>
class RoiAlignKernel final : public Kernel {
 public:
  explicit RoiAlignKernel(const Node& node)
      : label_(node.Describe()),
        x_dims_(InputShape(node, 0).dims()),
        num_rois_(InputShape(node, 1).dim(0)),
        pooled_h_(node.attrs().GetInt("pooled_height")),
        pooled_w_(node.attrs().GetInt("pooled_width")),
        sample_num_(node.attrs().GetInt("sample_num")),
        scale_(node.attrs().GetFloat("spatial_scale")),
        max_mode_(ChoiceIndex(node, "mode", {"avg", "max"}) == 1),
        half_pixel_(ChoiceIndex(node, "coordinate_transformation_mode", {"half_pixel", "output_half_pixel"}) == 0) {
    if (pooled_h_ <= 0 || pooled_w_ <= 0 || sample_num_ < 0) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("pooled_height {} and pooled_width {} must be positive and sample_num {} not negative",
                       pooled_h_, pooled_w_, sample_num_));
    }
    int64_t bins = 0;
    if (__builtin_mul_overflow(pooled_h_, pooled_w_, &bins) || bins > kMaxSamplesPerRoi) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("pooled_height {} x pooled_width {} bins exceed the {} samples an roi may take", pooled_h_,
                       pooled_w_, kMaxSamplesPerRoi));
    }
  }

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const T* rois = ctx.inputs[1].as<const T>();
    const std::vector<int64_t> batch = ReadIndexTensor(label_, ctx.inputs[2], "batch_indices");
    T* y = ctx.outputs[0].as<T>();
    const int64_t channels = x_dims_[1], height = x_dims_[2], width = x_dims_[3];
    const double offset = half_pixel_ ? 0.5 : 0.0;
    for (int64_t r = 0; r < num_rois_; ++r) {
      if (batch[r] < 0 || batch[r] >= x_dims_[0]) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: batch_indices[{}] = {} is outside [0, {})", label_,
                                                             r, batch[r], x_dims_[0]));
      }
      if (height == 0 || width == 0) {  // every sample falls outside an empty image
        T* out = y + r * channels * pooled_h_ * pooled_w_;
        std::fill(out, out + channels * pooled_h_ * pooled_w_, T(0));
        continue;
      }
      const T* roi = rois + r * 4;
      const double start_w = static_cast<double>(roi[0]) * scale_ - offset;
      const double start_h = static_cast<double>(roi[1]) * scale_ - offset;
      double roi_w = static_cast<double>(roi[2]) * scale_ - offset - start_w;
      double roi_h = static_cast<double>(roi[3]) * scale_ - offset - start_h;
      if (!half_pixel_) {  // the opset-10 rule: rois are at least one pixel
        roi_w = std::max(roi_w, 1.0);
        roi_h = std::max(roi_h, 1.0);
      }
      const double bin_h = roi_h / static_cast<double>(pooled_h_), bin_w = roi_w / static_cast<double>(pooled_w_);
      const int64_t grid_h = GridSize(bin_h, r), grid_w = GridSize(bin_w, r);
      const int64_t per_roi = SamplesPerRoi(grid_h, grid_w, r);
      const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
      // The samples of every bin, bin by bin; they are the same for all channels.
      std::vector<Sample> samples;
      samples.reserve(static_cast<size_t>(per_roi));
      for (int64_t ph = 0; ph < pooled_h_; ++ph) {
        for (int64_t pw = 0; pw < pooled_w_; ++pw) {
          for (int64_t iy = 0; iy < grid_h; ++iy) {
            const double sy = start_h + ph * bin_h + (iy + 0.5) * bin_h / static_cast<double>(grid_h);
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              const double sx = start_w + pw * bin_w + (ix + 0.5) * bin_w / static_cast<double>(grid_w);
              samples.push_back(BilinearSample(sy, sx, height, width));
            }
          }
        }
      }
      const size_t per_bin = static_cast<size_t>(std::max<int64_t>(grid_h * grid_w, 0));
#pragma omp parallel for if (static_cast<int64_t>(samples.size()) * channels > kParallelGrain / 4)
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = x + (batch[r] * channels + c) * height * width;
        T* out = y + (r * channels + c) * pooled_h_ * pooled_w_;
        for (int64_t bin = 0; bin < pooled_h_ * pooled_w_; ++bin) {
          double acc = 0;
          for (size_t k = 0; k < per_bin; ++k) {
            const Sample& s = samples[bin * per_bin + k];
            double v = max_mode_ ? s.w[0] * static_cast<double>(plane[s.pos[0]]) : 0.0;
            for (size_t corner = 0; corner < 4; ++corner) {
              const double term = s.w[corner] * static_cast<double>(plane[s.pos[corner]]);
              v = max_mode_ ? std::max(v, term) : v + term;
            }
            acc = max_mode_ ? (k == 0 ? v : std::max(acc, v)) : acc + v;
          }
          out[bin] = static_cast<T>(max_mode_ ? acc : acc / count);
        }
      }
    }
  }

 private:
  // Samples along one axis of a bin: sample_num, or ONNX's adaptive ceil(bin
  // size); a non-finite or huge roi fails rather than converting out of range.
  int64_t GridSize(double bin, int64_t roi) const {
    if (sample_num_ > 0) return sample_num_;
    if (!(std::abs(bin) <= static_cast<double>(kMaxSamplesPerRoi))) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: roi {} has bins of {} pixels; its samples exceed the {} an roi may take", label_,
                              roi, bin, kMaxSamplesPerRoi));
    }
    return static_cast<int64_t>(std::ceil(bin));
  }

  int64_t SamplesPerRoi(int64_t grid_h, int64_t grid_w, int64_t roi) const {
    int64_t per_bin = 0, per_roi = 0;
    if (__builtin_mul_overflow(std::max<int64_t>(grid_h, 0), std::max<int64_t>(grid_w, 0), &per_bin) ||
        __builtin_mul_overflow(pooled_h_ * pooled_w_, per_bin, &per_roi) || per_roi > kMaxSamplesPerRoi) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: roi {} takes {}x{} samples in each of {}x{} bins, more than the {} an roi may take",
                              label_, roi, grid_h, grid_w, pooled_h_, pooled_w_, kMaxSamplesPerRoi));
    }
    return per_roi;
  }

  std::string label_;
  std::vector<int64_t> x_dims_;
  int64_t num_rois_, pooled_h_, pooled_w_, sample_num_;
  double scale_;
  bool max_mode_, half_pixel_;
};

std::unique_ptr<Kernel> MakeRoiAlign(const Node& node) {
  const Shape& x = InputShape(node, 0);
  const Shape& rois = InputShape(node, 1);
  if (x.rank() != 4 || rois.rank() != 2 || rois.dim(1) != 4 || InputShape(node, 2).rank() != 1 ||
      InputShape(node, 2).dim(0) != rois.dim(0)) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("x {} must be NCHW, rois {} [R, 4] and batch_indices {} [R]", x.ToString(), rois.ToString(),
                     InputShape(node, 2).ToString()));
  }
  if (InputDtype(node, 1) != InputDtype(node, 0)) {
    Fail(node, ErrorCode::kInvalidModel, "rois must have the dtype of x");
  }
  return DispatchDtype(node, InputDtype(node, 0), FloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<RoiAlignKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterRoiAlignKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ROIAlign", DataTypesOf(FloatTypes{}), MakeRoiAlign);
}

}  // namespace ge::device::cpu
