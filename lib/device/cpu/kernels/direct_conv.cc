// Direct convolution and transposed convolution for the dtypes oneDNN has
// no kernels for (float64, float16, bfloat16). Each (batch, output channel)
// plane is one task: it accumulates in double over the input channels of its
// group and the filter taps, each tap a sweep over contiguous rows, then
// adds the bias and rounds once to the output dtype. float16/bfloat16
// operands are widened to float once per run.
#include <algorithm>
#include <vector>

#include "device/cpu/kernels/conv_geometry.h"
#include "device/cpu/kernels/conv_taps.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

template <typename T>
class DirectConvKernel final : public Kernel {
 public:
  explicit DirectConvKernel(const ConvGeometry& g)
      : inputs_(g.inputs),
        transposed_(g.transposed),
        has_bias_(g.has_bias),
        batch_(g.x.dim(0)),
        in_channels_(g.x.dim(1)),
        out_channels_(g.y.dim(1)),
        groups_(g.groups),
        in_(SpatialDims(g.x)),
        out_(SpatialDims(g.y)),
        kernel_(Pad3(g.kernel, 1)),
        stride_(Pad3(g.stride, 1)),
        dilation_(Pad3(g.dilation, 1)),
        pad_(Pad3(g.pad_begin, 0)),
        x_elements_(g.x.NumElements()),
        filter_elements_(g.filter.NumElements()) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[inputs_.x].as<T>();
    const T* w = ctx.inputs[inputs_.filter].as<T>();
    const T* bias = has_bias_ ? ctx.inputs[inputs_.bias].as<T>() : nullptr;
    T* y = ctx.outputs[0].as<T>();
    if constexpr (kIsHalf<T>) {
      const std::vector<float> wide_bias = has_bias_ ? Widened(bias, out_channels_) : std::vector<float>{};
      Convolve(Widened(x, x_elements_).data(), Widened(w, filter_elements_).data(),
               has_bias_ ? wide_bias.data() : nullptr, y);
    } else {
      Convolve(x, w, bias, y);
    }
  }

 private:
  // S: the element type read (T, or float for the half types).
  template <typename S>
  void Convolve(const S* x, const S* w, const S* bias, T* y) const {
    const int64_t in_group = in_channels_ / groups_, out_group = out_channels_ / groups_;
    const int64_t in_plane = in_[0] * in_[1] * in_[2], out_plane = out_[0] * out_[1] * out_[2];
    const int64_t taps = kernel_[0] * kernel_[1] * kernel_[2];
    const int64_t tasks = batch_ * out_channels_;
    const bool parallel = tasks > 1 && tasks * out_plane * in_group * taps > kParallelGrain;
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t n = task / out_channels_, oc = task % out_channels_;
      const int64_t group = oc / out_group;
      std::vector<double> acc(out_plane, bias != nullptr ? static_cast<double>(Load(bias[oc])) : 0.0);
      for (int64_t i = 0; i < in_group; ++i) {
        const int64_t ic = group * in_group + i;
        const S* plane = x + (n * in_channels_ + ic) * in_plane;
        // Conv: filter [Cout, Cin/g, k...]; transposed: [Cin, Cout/g, k...].
        const S* filter = w + (transposed_ ? ic * out_group + oc % out_group : oc * in_group + i) * taps;
        for (int64_t tap = 0; tap < taps; ++tap) {
          const Dims3 k = {tap / (kernel_[1] * kernel_[2]), tap / kernel_[2] % kernel_[1], tap % kernel_[2]};
          const double weight = static_cast<double>(Load(filter[tap]));
          if (transposed_) {
            Scatter(plane, weight, k, acc.data());
          } else {
            Gather(plane, weight, k, acc.data());
          }
        }
      }
      T* dst = y + task * out_plane;
      for (int64_t e = 0; e < out_plane; ++e) dst[e] = Store<T>(acc[e]);
    }
  }

  // Offset of tap k along an axis: input position = output position * stride + offset (conv) or
  // output position = input position * stride + offset (transposed).
  int64_t Offset(size_t axis, int64_t k) const { return k * dilation_[axis] - pad_[axis]; }

  // acc[o] += weight * x[o * stride + offset] over the outputs whose input is inside x.
  template <typename S>
  void Gather(const S* x, double weight, const Dims3& k, double* acc) const {
    const Range rd = ValidRange(out_[0], in_[0], stride_[0], Offset(0, k[0]));
    const Range rh = ValidRange(out_[1], in_[1], stride_[1], Offset(1, k[1]));
    const Range rw = ValidRange(out_[2], in_[2], stride_[2], Offset(2, k[2]));
    for (int64_t od = rd.begin; od < rd.end; ++od) {
      const int64_t id = od * stride_[0] + Offset(0, k[0]);
      for (int64_t oh = rh.begin; oh < rh.end; ++oh) {
        const int64_t ih = oh * stride_[1] + Offset(1, k[1]);
        // Index arithmetic rather than a shifted row pointer: the shift may point before the plane.
        const int64_t row = (id * in_[1] + ih) * in_[2] + Offset(2, k[2]);
        double* out_row = acc + (od * out_[1] + oh) * out_[2];
        for (int64_t ow = rw.begin; ow < rw.end; ++ow) {
          out_row[ow] += weight * static_cast<double>(Load(x[row + ow * stride_[2]]));
        }
      }
    }
  }

  // acc[i * stride + offset] += weight * x[i] over the inputs whose output is inside y.
  template <typename S>
  void Scatter(const S* x, double weight, const Dims3& k, double* acc) const {
    const Range rd = ValidRange(in_[0], out_[0], stride_[0], Offset(0, k[0]));
    const Range rh = ValidRange(in_[1], out_[1], stride_[1], Offset(1, k[1]));
    const Range rw = ValidRange(in_[2], out_[2], stride_[2], Offset(2, k[2]));
    for (int64_t id = rd.begin; id < rd.end; ++id) {
      const int64_t od = id * stride_[0] + Offset(0, k[0]);
      for (int64_t ih = rh.begin; ih < rh.end; ++ih) {
        const int64_t oh = ih * stride_[1] + Offset(1, k[1]);
        const S* row = x + (id * in_[1] + ih) * in_[2];
        const int64_t out_row = (od * out_[1] + oh) * out_[2] + Offset(2, k[2]);
        for (int64_t iw = rw.begin; iw < rw.end; ++iw) {
          acc[out_row + iw * stride_[2]] += weight * static_cast<double>(Load(row[iw]));
        }
      }
    }
  }

  ConvInputs inputs_;
  bool transposed_, has_bias_;
  int64_t batch_, in_channels_, out_channels_, groups_;
  Dims3 in_, out_, kernel_, stride_, dilation_, pad_;
  int64_t x_elements_, filter_elements_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDirectConv(const Node& node, const ConvGeometry& geometry) {
  return DispatchDtype(node, geometry.dtype, TypeList<double, _Float16, BFloat16>{},
                       [&](auto tag) -> std::unique_ptr<Kernel> {
                         return std::make_unique<DirectConvKernel<typename decltype(tag)::type>>(geometry);
                       });
}

}  // namespace ge::device::cpu
