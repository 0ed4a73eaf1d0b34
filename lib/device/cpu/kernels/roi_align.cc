// ROIAlign (ONNX RoiAlign): each roi of its image, scaled by spatial_scale,
// is cut into pooled_height x pooled_width bins; a bin is the average (or
// max) of a grid of bilinear samples. Sampling follows the ONNX reference:
// samples more than one pixel outside the image count as 0, others clamp to
// the edge; "max" takes the largest weighted corner of each sample.
//
// A bin's samples are the product of its row samples and its column samples,
// and a sample's corner weights are a row weight times a column weight. So
// the samples of one axis that share a pixel row (or column) are grouped
// first, and a bin costs groups_y x groups_x corner reads per channel rather
// than one per sample: a grid of 64x64 samples over a bin of one pixel reads
// four pixels, not 16,384. "avg" sums a group's weights; "max" keeps their
// extremes, since with weights >= 0 the largest w_y * w_x * p over a group is
// p * max * max when p >= 0 and p * min * min otherwise. Computed in double.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

// The samples of one bin along one axis that fall between the same two
// pixels: their low and high pixel and, per corner (0 low, 1 high), the sum,
// least and largest of their weights.
struct AxisGroup {
  std::array<int64_t, 2> pixel{};
  std::array<double, 2> sum{};
  std::array<double, 2> least{};
  std::array<double, 2> largest{};
};

// One bin's samples along one axis.
struct AxisBin {
  std::vector<AxisGroup> groups;  // samples inside the image, by pixel
  bool outside = false;           // a sample lies more than a pixel outside
  bool nan = false;               // a sample coordinate is NaN (a NaN roi or scale)
};

// Samples begin + (i + 0.5) * size / grid for i < grid along an axis of
// `extent` pixels (not 0; Run handles empty images). The coordinates rise
// with i, so samples between the same pixels are adjacent.
AxisBin SampleAxis(double begin, double size, int64_t grid, int64_t extent) {
  AxisBin bin;
  for (int64_t i = 0; i < grid; ++i) {
    double v = begin + (static_cast<double>(i) + 0.5) * size / static_cast<double>(grid);
    if (std::isnan(v)) {
      bin.nan = true;
      continue;
    }
    if (v < -1.0 || v > static_cast<double>(extent)) {
      bin.outside = true;
      continue;
    }
    v = std::max(v, 0.0);
    auto low = static_cast<int64_t>(v);
    int64_t high = low + 1;
    if (low >= extent - 1) {  // at or past the last pixel: all weight on it
      low = high = extent - 1;
      v = static_cast<double>(low);
    }
    const double high_weight = v - static_cast<double>(low);
    const std::array<double, 2> weight{1 - high_weight, high_weight};
    if (bin.groups.empty() || bin.groups.back().pixel[0] != low) {
      bin.groups.push_back({{low, high}, weight, weight, weight});
      continue;
    }
    AxisGroup& group = bin.groups.back();
    for (size_t corner = 0; corner < 2; ++corner) {
      group.sum[corner] += weight[corner];
      group.least[corner] = std::min(group.least[corner], weight[corner]);
      group.largest[corner] = std::max(group.largest[corner], weight[corner]);
    }
  }
  return bin;
}

// Bilinear samples one roi may take: far above any real detector (7x7 bins
// of 2x2 samples, or adaptive grids over a large image), low enough that a
// hostile roi or sample_num fails instead of sampling for hours.
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
      CheckSamplesPerRoi(grid_h, grid_w, r);
      const double count = static_cast<double>(std::max<int64_t>(grid_h * grid_w, 1));
      // The row and column samples of every bin; they are the same for all channels.
      std::vector<AxisBin> rows, cols;
      for (int64_t ph = 0; ph < pooled_h_; ++ph) {
        rows.push_back(SampleAxis(start_h + ph * bin_h, bin_h, grid_h, height));
      }
      for (int64_t pw = 0; pw < pooled_w_; ++pw) {
        cols.push_back(SampleAxis(start_w + pw * bin_w, bin_w, grid_w, width));
      }
      const bool empty_grid = grid_h <= 0 || grid_w <= 0;  // an adaptive grid over an empty bin
      int64_t reads = 0;
      for (const AxisBin& row : rows) {
        for (const AxisBin& col : cols) reads += static_cast<int64_t>(row.groups.size() * col.groups.size());
      }
#pragma omp parallel for if (reads * channels > kParallelGrain / 4)
      for (int64_t c = 0; c < channels; ++c) {
        const T* plane = x + (batch[r] * channels + c) * height * width;
        T* out = y + (r * channels + c) * pooled_h_ * pooled_w_;
        for (int64_t ph = 0; ph < pooled_h_; ++ph) {
          for (int64_t pw = 0; pw < pooled_w_; ++pw) {
            const AxisBin& row = rows[static_cast<size_t>(ph)];
            const AxisBin& col = cols[static_cast<size_t>(pw)];
            double value = 0;  // an empty grid samples nothing
            if (!empty_grid && (row.nan || col.nan)) {
              value = std::numeric_limits<double>::quiet_NaN();
            } else if (!empty_grid) {
              value = max_mode_ ? MaxOfBin(plane, width, row, col) : SumOfBin(plane, width, row, col) / count;
            }
            out[ph * pooled_w_ + pw] = static_cast<T>(value);
          }
        }
      }
    }
  }

 private:
  // A sample outside the image has zero weights on pixel 0, as in the ONNX
  // reference: it adds 0, or NaN where that pixel is not finite.
  static double OutsideTerm(const T* plane) { return 0.0 * static_cast<double>(plane[0]); }

  static double SumOfBin(const T* plane, int64_t width, const AxisBin& row, const AxisBin& col) {
    double sum = row.outside || col.outside ? OutsideTerm(plane) : 0.0;
    for (const AxisGroup& gy : row.groups) {
      for (size_t a = 0; a < 2; ++a) {
        const T* line = plane + gy.pixel[a] * width;
        double across = 0;
        for (const AxisGroup& gx : col.groups) {
          across += gx.sum[0] * static_cast<double>(line[gx.pixel[0]]) +
                    gx.sum[1] * static_cast<double>(line[gx.pixel[1]]);
        }
        sum += gy.sum[a] * across;
      }
    }
    return sum;
  }

  static double MaxOfBin(const T* plane, int64_t width, const AxisBin& row, const AxisBin& col) {
    double best = row.outside || col.outside ? OutsideTerm(plane) : -std::numeric_limits<double>::infinity();
    for (const AxisGroup& gy : row.groups) {
      for (size_t a = 0; a < 2; ++a) {
        const T* line = plane + gy.pixel[a] * width;
        for (const AxisGroup& gx : col.groups) {
          for (size_t b = 0; b < 2; ++b) {
            const double p = static_cast<double>(line[gx.pixel[b]]);
            const double term = p >= 0 ? p * gy.largest[a] * gx.largest[b] : p * gy.least[a] * gx.least[b];
            best = std::max(best, term);
          }
        }
      }
    }
    return best;
  }

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

  void CheckSamplesPerRoi(int64_t grid_h, int64_t grid_w, int64_t roi) const {
    int64_t per_bin = 0, per_roi = 0;
    if (__builtin_mul_overflow(std::max<int64_t>(grid_h, 0), std::max<int64_t>(grid_w, 0), &per_bin) ||
        __builtin_mul_overflow(pooled_h_ * pooled_w_, per_bin, &per_roi) || per_roi > kMaxSamplesPerRoi) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: roi {} takes {}x{} samples in each of {}x{} bins, more than the {} an roi may take",
                              label_, roi, grid_h, grid_w, pooled_h_, pooled_w_, kMaxSamplesPerRoi));
    }
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
