// MaxPoolV3 / AvgPoolV2 on NCHW or NHWC and MaxPool3D / AvgPool3D on NCDHW, with pads,
// dilations (max), ceil_mode, global pooling and exclusive/inclusive
// averaging, MaxPoolWithArgmax; and MaxUnpool. A 2-D window is run as a 3-D
// one of depth 1. AvgPoolV2 also averages int8 (with a zero point, offset_x).
// Max pooling of 2-D planes with the common windows (width 2 or 3, stride 1
// or 2 along W, no dilation) runs row by row in per-CPU clones.
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/window_attrs.h"

namespace ge::device::cpu {

namespace {

// Per spatial axis, in D, H, W order.
using Dims3 = std::array<int64_t, 3>;

struct PoolGeometry {
  int64_t planes = 0;    // N * C; N for channels-last x
  int64_t channels = 1;  // C for channels-last x (each pixel a C-long row), else 1
  bool channels_last = false;
  Dims3 in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, dilation{1, 1, 1};
  Dims3 pad_begin{0, 0, 0}, pad_end{0, 0, 0};

  int64_t in_plane() const { return in[0] * in[1] * in[2]; }
  int64_t out_plane() const { return out[0] * out[1] * out[2]; }
};

PoolGeometry ReadGeometry(const Node& node, bool has_dilations) {
  const WindowLayout layout = WindowLayoutOf(node, 0, /*allow_channels_last=*/true);
  const size_t spatial = layout.spatial;
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (y.rank() != x.rank()) {
    Fail(node, ErrorCode::kInvalidArgument, fmt::format("x {} and y {} must have the same rank", x.ToString(),
                                                        y.ToString()));
  }
  PoolGeometry g;
  g.channels_last = layout.channels_last;
  g.channels = g.channels_last ? x.dim(layout.channel_axis()) : 1;
  g.planes = g.channels_last ? x.dim(0) : x.dim(0) * x.dim(1);
  const size_t first = 3 - spatial;  // 2-D windows leave the depth axis at 1
  for (size_t a = 0; a < spatial; ++a) {
    g.in[first + a] = x.dim(layout.spatial_axis(a));
    g.out[first + a] = y.dim(layout.spatial_axis(a));
  }
  const auto& attrs = node.attrs();
  if (attrs.Has("global_pooling") && attrs.GetBool("global_pooling")) {
    // The window is the whole plane, without padding.
    g.kernel = g.in;
  } else {
    const std::vector<int64_t> kernel = SpatialAttrN(node, "ksize", layout);
    const std::vector<int64_t> stride = SpatialAttrN(node, "strides", layout);
    const std::vector<int64_t> dilation =
        has_dilations ? SpatialAttrN(node, "dilations", layout) : std::vector<int64_t>(spatial, 1);
    const std::vector<int64_t> pads = PadsAttrN(node, spatial);
    for (size_t a = 0; a < spatial; ++a) {
      g.kernel[first + a] = kernel[a];
      g.stride[first + a] = stride[a];
      g.dilation[first + a] = dilation[a];
      g.pad_begin[first + a] = pads[2 * a];
      g.pad_end[first + a] = pads[2 * a + 1];
    }
  }
  // The planned output must lie within the (padded) input: the first cell of
  // every window starts inside it, so no window reads out of bounds.
  for (size_t a = 0; a < 3; ++a) {
    if ((g.out[a] - 1) * g.stride[a] - g.pad_begin[a] >= g.in[a] + g.pad_end[a]) {
      Fail(node, ErrorCode::kInvalidModel,
           fmt::format("output {} does not fit input {} with these ksize/strides/pads", y.ToString(), x.ToString()));
    }
  }
  return g;
}

// An averaging window clipped to the input: [begin, end) per axis, its
// `real` cells and the `padded` count (cells inside input plus padding, the
// count of inclusive averages).
struct ClippedWindow {
  Dims3 begin, end;
  int64_t real = 1, padded = 1;
};

ClippedWindow ClipWindow(const PoolGeometry& g, const Dims3& corner) {
  ClippedWindow w;
  for (size_t a = 0; a < 3; ++a) {
    w.begin[a] = std::max<int64_t>(corner[a], 0);
    w.end[a] = std::min(corner[a] + g.kernel[a], g.in[a]);
    w.real *= std::max<int64_t>(w.end[a] - w.begin[a], 0);
    w.padded *= std::min(corner[a] + g.kernel[a], g.in[a] + g.pad_end[a]) - corner[a];
  }
  return w;
}

// Calls visit(plane, output offset, corner) for every output cell, where
// corner is the window's first cell in input coordinates (negative inside the
// padding) and plane the N * C index.
template <typename Visit>
void ForEachWindow(const PoolGeometry& g, Visit&& visit) {
#pragma omp parallel for if (g.planes * g.out_plane() > kParallelGrain / 16)
  for (int64_t p = 0; p < g.planes; ++p) {
    int64_t out = p * g.out_plane();
    for (int64_t od = 0; od < g.out[0]; ++od) {
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
          const Dims3 corner = {od * g.stride[0] - g.pad_begin[0], oh * g.stride[1] - g.pad_begin[1],
                                ow * g.stride[2] - g.pad_begin[2]};
          visit(p, out++, corner);
        }
      }
    }
  }
}

// The maximum of the window at `corner` (its first cell, negative inside the
// padding) in one plane, T{} for a window of padding only. The window is
// clamped to the input once per axis, then scanned without per-element bounds
// checks; the first real element seeds the maximum, and each later one
// replaces it when greater (std::max's order, so a leading NaN stays and
// later ones are skipped).
template <typename T>
T WindowMax(const PoolGeometry& g, const T* plane, const Dims3& c) {
  Dims3 first, last;
  for (size_t a = 0; a < 3; ++a) {
    first[a] = c[a] < 0 ? (-c[a] + g.dilation[a] - 1) / g.dilation[a] : 0;
    last[a] = c[a] >= g.in[a] ? 0 : std::min(g.kernel[a], (g.in[a] - 1 - c[a]) / g.dilation[a] + 1);
    if (first[a] >= last[a]) return T{};  // as the checked loop of MaxPoolKernel gives
  }
  Compute<T> best = Load(plane[((c[0] + first[0] * g.dilation[0]) * g.in[1] + c[1] + first[1] * g.dilation[1]) *
                                   g.in[2] +
                               c[2] + first[2] * g.dilation[2]]);
  for (int64_t i = first[0]; i < last[0]; ++i) {
    const int64_t d = c[0] + i * g.dilation[0];
    for (int64_t j = first[1]; j < last[1]; ++j) {
      const T* row = plane + (d * g.in[1] + c[1] + j * g.dilation[1]) * g.in[2] + c[2];
      for (int64_t k = first[2]; k < last[2]; ++k) best = std::max(best, Load(row[k * g.dilation[2]]));
    }
  }
  return Store<T>(best);
}

// y[ow] = the maximum of y[ow] (with kSeed: of the window's first cell) and
// the cells of the window row[ow * kStride - pad_left + k], k < kWidth, in that
// order, for ow in [begin, end), whose windows lie inside the row.
template <typename T, int kWidth, int kStride, bool kSeed>
inline void MaxOverRow(const T* row, int64_t pad_left, T* y, int64_t begin, int64_t end) {
#pragma omp simd
  for (int64_t ow = begin; ow < end; ++ow) {
    const T* window = row + (ow * kStride - pad_left);
    T best = kSeed ? window[0] : y[ow];
    for (int k = 0; k < kWidth; ++k) best = best < window[k] ? window[k] : best;  // std::max(best, window[k])
    y[ow] = best;
  }
}

// One 2-D plane (g.in[0] == 1, no dilation) for windows kWidth wide at
// stride kStride along W. Each output row takes the running maximum over its
// window's real rows, visiting floats in WindowMax's order (so NaNs and
// signed zeros come out the same), vectorized over the output columns whose
// window lies inside the input row; columns whose window reaches into the
// padding, and rows of padding only, go through WindowMax.
template <typename T, int kWidth, int kStride>
void MaxPoolPlane2D(const PoolGeometry& g, const T* in, T* out) {
  const int64_t in_h = g.in[1], in_w = g.in[2], out_h = g.out[1], out_w = g.out[2];
  const int64_t pad_left = g.pad_begin[2];
  // Columns [inner_begin, inner_end) have their whole window inside the row.
  const int64_t inner_begin = std::min(out_w, (pad_left + kStride - 1) / kStride);
  const int64_t reach = in_w + pad_left - kWidth;  // the last window start (padded coordinates) that fits
  const int64_t inner_end = std::max(inner_begin, reach < 0 ? 0 : std::min(out_w, reach / kStride + 1));
  std::vector<T> columns(std::is_integral_v<T> ? in_w : 0);
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const int64_t top = oh * g.stride[1] - g.pad_begin[1];
    const int64_t row_begin = std::max<int64_t>(top, 0), row_end = std::min(top + g.kernel[1], in_h);
    T* y = out + oh * out_w;
    const auto edge = [&](int64_t ow) { y[ow] = WindowMax(g, in, Dims3{0, top, ow * kStride - pad_left}); };
    if (row_begin >= row_end) {
      for (int64_t ow = 0; ow < out_w; ++ow) edge(ow);
      continue;
    }
    for (int64_t ow = 0; ow < inner_begin; ++ow) edge(ow);
    if constexpr (std::is_integral_v<T>) {
      // Integer maxima do not depend on the order: take the column maxima over
      // the window's rows (contiguous), then one strided pass over them.
      std::copy(in + row_begin * in_w, in + (row_begin + 1) * in_w, columns.begin());
      for (int64_t h = row_begin + 1; h < row_end; ++h) {
        const T* row = in + h * in_w;
#pragma omp simd
        for (int64_t w = 0; w < in_w; ++w) columns[w] = columns[w] < row[w] ? row[w] : columns[w];
      }
      MaxOverRow<T, kWidth, kStride, /*kSeed=*/true>(columns.data(), pad_left, y, inner_begin, inner_end);
    } else {
      MaxOverRow<T, kWidth, kStride, /*kSeed=*/true>(in + row_begin * in_w, pad_left, y, inner_begin, inner_end);
      for (int64_t h = row_begin + 1; h < row_end; ++h) {
        MaxOverRow<T, kWidth, kStride, /*kSeed=*/false>(in + h * in_w, pad_left, y, inner_begin, inner_end);
      }
    }
    for (int64_t ow = inner_end; ow < out_w; ++ow) edge(ow);
  }
}

template <typename T, int64_t kWidth, int64_t kStride>
void MaxPoolPlane2DPerCpu(const PoolGeometry& g, const T* in, T* out) {
  PerCpu([&] { MaxPoolPlane2D<T, kWidth, kStride>(g, in, out); });
}

// MaxPoolPlane2D, run per CPU, for g's window, or null where it does not apply (3-D or
// dilated windows, other widths and strides, float16/bfloat16 elements,
// which compare in float).
template <typename T>
auto MaxPoolPlane2DFor(const PoolGeometry& g) -> void (*)(const PoolGeometry&, const T*, T*) {
  if constexpr (std::is_same_v<Compute<T>, T>) {
    if (g.in[0] != 1 || g.kernel[0] != 1 || g.out[0] != 1 || g.dilation[1] != 1 || g.dilation[2] != 1) return nullptr;
    if (g.kernel[2] == 2 && g.stride[2] == 1) return MaxPoolPlane2DPerCpu<T, 2, 1>;
    if (g.kernel[2] == 2 && g.stride[2] == 2) return MaxPoolPlane2DPerCpu<T, 2, 2>;
    if (g.kernel[2] == 3 && g.stride[2] == 1) return MaxPoolPlane2DPerCpu<T, 3, 1>;
    if (g.kernel[2] == 3 && g.stride[2] == 2) return MaxPoolPlane2DPerCpu<T, 3, 2>;
  }
  return nullptr;
}

// Padding never wins: only real input elements take part. The optional
// argmax output is the flat index of the maximum in x (first one on ties):
// row-major, or with storage_order 1 column-major within each plane (ONNX's
// MaxPool Indices).
template <typename T>
class MaxPoolKernel final : public Kernel {
 public:
  MaxPoolKernel(PoolGeometry g, bool column_major)
      : g_(g), column_major_(column_major), plane_2d_(MaxPoolPlane2DFor<T>(g)) {}
  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    int64_t* argmax = ctx.outputs.size() > 1 ? ctx.outputs[1].as<int64_t>() : nullptr;
    const bool column_major = column_major_;
    if (argmax == nullptr && plane_2d_ != nullptr) {
#pragma omp parallel for if (g.planes * g.out_plane() > kParallelGrain / 16)
      for (int64_t p = 0; p < g.planes; ++p) plane_2d_(g, x + p * g.in_plane(), y + p * g.out_plane());
      return;
    }
    if (argmax == nullptr) {
      ForEachWindow(g, [&](int64_t p, int64_t out, const Dims3& c) { y[out] = WindowMax(g, x + p * g.in_plane(), c); });
      return;
    }
    ForEachWindow(g, [&](int64_t p, int64_t out, const Dims3& c) {
      const T* plane = x + p * g.in_plane();
      // The first real element seeds the maximum (no dtype-specific lowest value needed).
      bool seeded = false;
      Compute<T> best{};
      Dims3 at{0, 0, 0};
      for (int64_t i = 0; i < g.kernel[0]; ++i) {
        const int64_t d = c[0] + i * g.dilation[0];
        if (d < 0 || d >= g.in[0]) continue;
        for (int64_t j = 0; j < g.kernel[1]; ++j) {
          const int64_t h = c[1] + j * g.dilation[1];
          if (h < 0 || h >= g.in[1]) continue;
          const T* row = plane + (d * g.in[1] + h) * g.in[2];
          for (int64_t k = 0; k < g.kernel[2]; ++k) {
            const int64_t w = c[2] + k * g.dilation[2];
            if (w >= 0 && w < g.in[2] && (!seeded || Load(row[w]) > best)) {
              best = Load(row[w]);
              at = {d, h, w};
              seeded = true;
            }
          }
        }
      }
      y[out] = Store<T>(best);
      if (argmax != nullptr) {
        const int64_t within = column_major ? at[0] + (at[1] + at[2] * g.in[1]) * g.in[0]
                                            : (at[0] * g.in[1] + at[1]) * g.in[2] + at[2];
        argmax[out] = p * g.in_plane() + within;
      }
    });
  }

 private:
  PoolGeometry g_;
  bool column_major_;
  void (*plane_2d_)(const PoolGeometry&, const T*, T*);  // the fast path, or null
};

// exclusive: divide by the number of real input elements in the window.
// inclusive: divide by the window clipped to the padded input (the
// PyTorch/ONNX rule: the extra cells a ceil_mode window reaches past the
// padding are not counted). The window sums in double (high_precision), or
// with kFast (high_performance) in the compute type, scaled by 1/count.
template <typename T, bool kFast>
class AvgPoolKernel final : public Kernel {
  using Acc = std::conditional_t<kFast, Compute<T>, double>;

 public:
  AvgPoolKernel(PoolGeometry g, bool exclusive) : g_(g), exclusive_(exclusive) {}
  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    const bool exclusive = exclusive_;
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    ForEachWindow(g, [&g, exclusive, x, y](int64_t p, int64_t out, const Dims3& c) {
      const T* plane = x + p * g.in_plane();
      const auto [begin, end, real, padded] = ClipWindow(g, c);
      Acc sum = 0;
      for (int64_t d = begin[0]; d < end[0]; ++d) {
        for (int64_t h = begin[1]; h < end[1]; ++h) {
          const T* row = plane + (d * g.in[1] + h) * g.in[2];
          // Plain locals: clang 16 crashes on a structured binding named inside an OpenMP region.
          const int64_t w_begin = begin[2];
          const int64_t w_end = end[2];
#pragma omp simd reduction(+ : sum)
          for (int64_t w = w_begin; w < w_end; ++w) sum += static_cast<Acc>(Load(row[w]));
        }
      }
      const int64_t count = exclusive ? real : padded;
      if constexpr (kFast) {
        y[out] = Store<T>(count > 0 ? sum * (Acc(1) / static_cast<Acc>(count)) : Acc(0));
      } else {
        y[out] = Store<T>(count > 0 ? sum / static_cast<double>(count) : 0.0);
      }
    });
  }

 private:
  PoolGeometry g_;
  bool exclusive_;
};

// One output row (all ow at one oh) of 2-D pooling of channels-last x
// ([N, H, W, C], `image` is one N): each output pixel combines the C-long
// rows of its window's real input pixels in window order, vectorized over the
// channels, under the planar kernels' rules: padding never wins a maximum (a
// window of padding only gives T{}), the first real cell seeds it and a later
// one replaces it when greater; averages divide by the counts AvgPoolKernel
// uses, summing in Acc (scaled by 1/count when Acc is the compute type, the
// high_performance form). acc holds C values.
// Calls visit(h * W + w) for each cell of the 2-D window starting at (top,
// left) that lies inside the input, in window order.
template <typename Visit>
[[gnu::always_inline]] inline void ForEachRealCell(const PoolGeometry& g, int64_t top, int64_t left, Visit&& visit) {
  for (int64_t i = 0; i < g.kernel[1]; ++i) {
    const int64_t h = top + i * g.dilation[1];
    if (h < 0 || h >= g.in[1]) continue;
    for (int64_t j = 0; j < g.kernel[2]; ++j) {
      const int64_t w = left + j * g.dilation[2];
      if (w >= 0 && w < g.in[2]) visit(h * g.in[2] + w);
    }
  }
}

// Maximum pooling's channel blocks of this many values stay in registers
// across the window (one AVX-512 register of float); the channels after the
// last whole block go through the general loop, and so do windows of more
// than kMaxBlockCells cells (global pooling).
constexpr int64_t kMaxBlock = 16;
constexpr int64_t kMaxBlockCells = 16;

// The maxima of channels [0, blocks * kMaxBlock) of one output pixel whose
// window starts at (top, left), under ChannelsLastPoolRow's rules. Inlined
// into ChannelsLastPoolRow's per-CPU clones; the window's real cells are
// listed first so that the loop over them has no branch and the block stays
// in a register.
template <typename T, typename Acc>
[[gnu::always_inline]] inline void MaxOverWindowBlocks(const PoolGeometry& g, const T* image, int64_t top,
                                                       int64_t left, int64_t blocks, T* out) {
  const T* cells[kMaxBlockCells];
  int64_t real = 0;
  ForEachRealCell(g, top, left, [&](int64_t pixel) { cells[real++] = image + pixel * g.channels; });
  for (int64_t b = 0; b < blocks; ++b, out += kMaxBlock) {
    if (real == 0) {
      std::fill(out, out + kMaxBlock, T{});
      continue;
    }
    const int64_t offset = b * kMaxBlock;
    Acc block[kMaxBlock];
#pragma omp simd
    for (int64_t c = 0; c < kMaxBlock; ++c) block[c] = static_cast<Acc>(Load(cells[0][offset + c]));
    for (int64_t k = 1; k < real; ++k) {
      const T* cell = cells[k] + offset;
#pragma omp simd
      for (int64_t c = 0; c < kMaxBlock; ++c) {
        const Acc v = static_cast<Acc>(Load(cell[c]));
        block[c] = block[c] < v ? v : block[c];
      }
    }
#pragma omp simd
    for (int64_t c = 0; c < kMaxBlock; ++c) out[c] = Store<T>(block[c]);
  }
}

template <typename T, typename Acc, bool kMax>
void ChannelsLastPoolRow(const PoolGeometry& g, bool exclusive, const T* image, int64_t oh, Acc* acc,
                                       T* out) {
  const int64_t top = oh * g.stride[1] - g.pad_begin[1];
  // Maxima of whole channel blocks are taken block by block; the rest of the
  // channels (all of them for averages) below.
  const int64_t blocks = kMax && g.kernel[1] * g.kernel[2] <= kMaxBlockCells ? g.channels / kMaxBlock : 0;
  const int64_t first = blocks * kMaxBlock;
  const int64_t channels = g.channels - first;
  const T* rest_image = image + first;
  for (int64_t ow = 0; ow < g.out[2]; ++ow, out += g.channels) {
    const int64_t left = ow * g.stride[2] - g.pad_begin[2];
    if (blocks > 0) MaxOverWindowBlocks<T, Acc>(g, image, top, left, blocks, out);
    if (channels == 0) continue;
    T* rest = out + first;
    int64_t real = 0;
    ForEachRealCell(g, top, left, [&](int64_t pixel) {
      const T* cell = rest_image + pixel * g.channels;
      if (real++ == 0) {
#pragma omp simd
        for (int64_t c = 0; c < channels; ++c) acc[c] = static_cast<Acc>(Load(cell[c]));
      } else if constexpr (kMax) {
#pragma omp simd
        for (int64_t c = 0; c < channels; ++c) {
          const Acc v = static_cast<Acc>(Load(cell[c]));
          acc[c] = acc[c] < v ? v : acc[c];
        }
      } else {
#pragma omp simd
        for (int64_t c = 0; c < channels; ++c) acc[c] += static_cast<Acc>(Load(cell[c]));
      }
    });
    if constexpr (kMax) {
#pragma omp simd
      for (int64_t c = 0; c < channels; ++c) rest[c] = real > 0 ? Store<T>(acc[c]) : T{};
    } else {
      const int64_t padded = (std::min(top + g.kernel[1], g.in[1] + g.pad_end[1]) - top) *
                             (std::min(left + g.kernel[2], g.in[2] + g.pad_end[2]) - left);
      const int64_t count = exclusive ? real : padded;
      if (count <= 0 || real == 0) {
        std::fill(rest, rest + channels, Store<T>(Compute<T>(0)));
      } else if constexpr (std::is_same_v<Acc, double>) {
        for (int64_t c = 0; c < channels; ++c) rest[c] = Store<T>(acc[c] / static_cast<double>(count));
      } else {
        const Acc scale = Acc(1) / static_cast<Acc>(count);
#pragma omp simd
        for (int64_t c = 0; c < channels; ++c) rest[c] = Store<T>(acc[c] * scale);
      }
    }
  }
}

// ChannelsLastPoolRow over the rows of every image, in parallel.
template <typename T, typename Acc, bool kMax>
class ChannelsLastPoolKernel final : public Kernel {
 public:
  ChannelsLastPoolKernel(PoolGeometry g, bool exclusive) : g_(g), exclusive_(exclusive) {}

  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t rows = g.planes * g.out[1];
#pragma omp parallel if (rows * g.out[2] * g.channels > kParallelGrain / 16)
    {
      std::vector<Acc> acc(static_cast<size_t>(g.channels));
#pragma omp for
      for (int64_t row = 0; row < rows; ++row) {
        const T* image = x + row / g.out[1] * g.in_plane() * g.channels;
        PerCpu([&] {
          ChannelsLastPoolRow<T, Acc, kMax>(g, exclusive_, image, row % g.out[1], acc.data(),
                                            y + row * g.out[2] * g.channels);
        });
      }
    }
  }

 private:
  PoolGeometry g_;
  bool exclusive_;
};

// int8 averaging (quantized models), NCHW or NHWC: the window sums exactly in int64, padded
// cells that are counted (exclusive = false) hold the zero point offset_x, and
// the mean rounds half to even.
class Int8AvgPoolKernel final : public Kernel {
 public:
  Int8AvgPoolKernel(PoolGeometry g, bool exclusive, int64_t offset_x)
      : g_(g), exclusive_(exclusive), offset_x_(offset_x) {}
  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    const bool exclusive = exclusive_;
    const int64_t offset_x = offset_x_;
    const int8_t* x = ctx.inputs[0].as<const int8_t>();
    int8_t* y = ctx.outputs[0].as<int8_t>();
    // g.channels is 1 for NCHW; channels-last x holds a C-long row per pixel.
    const int64_t channels = g.channels;
    ForEachWindow(g, [&g, exclusive, offset_x, channels, x, y](int64_t p, int64_t out, const Dims3& c) {
      const int8_t* plane = x + p * g.in_plane() * channels;
      const auto [begin, end, real, padded] = ClipWindow(g, c);
      const int64_t count = exclusive ? real : padded;
      for (int64_t channel = 0; channel < channels; ++channel) {
        int64_t sum = exclusive ? 0 : (padded - real) * offset_x;
        for (int64_t d = begin[0]; d < end[0]; ++d) {
          for (int64_t h = begin[1]; h < end[1]; ++h) {
            const int8_t* row = plane + (d * g.in[1] + h) * g.in[2] * channels + channel;
            for (int64_t w = begin[2]; w < end[2]; ++w) sum += row[w * channels];
          }
        }
        // The quotient of two small integers in double is correctly rounded, so an exact .5 stays one.
        y[out * channels + channel] =
            count > 0 ? static_cast<int8_t>(std::nearbyint(static_cast<double>(sum) / static_cast<double>(count)))
                      : static_cast<int8_t>(offset_x);
      }
    });
  }

 private:
  PoolGeometry g_;
  bool exclusive_;
  int64_t offset_x_;
};

// Elements are compared and summed as Load() gives them (float16/bfloat16 in float).
using MaxPoolTypes = TypeList<float, double, _Float16, BFloat16, int8_t, uint8_t, int16_t>;

// MaxPoolWithArgmax has the argmax output and its storage_order.
std::unique_ptr<Kernel> MakeMaxPool(const Node& node) {
  const PoolGeometry g = ReadGeometry(node, /*has_dilations=*/true);
  const bool column_major = node.attrs().Has("storage_order") && node.attrs().GetInt("storage_order") == 1;
  if (node.num_outputs() > 1 && node.output(1) != nullptr && node.output(1)->dtype() != DataType::kInt64) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("output argmax must be int64, got {}", DataTypeName(node.output(1)->dtype())));
  }
  if (g.channels_last && node.num_outputs() > 1) {
    Fail(node, ErrorCode::kUnsupported, "the argmax output needs NCHW or NCDHW x, not NHWC");
  }
  return DispatchDtype(node, InputDtype(node, 0), MaxPoolTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    if (g.channels_last) return std::make_unique<ChannelsLastPoolKernel<T, Compute<T>, /*kMax=*/true>>(g, false);
    return std::make_unique<MaxPoolKernel<T>>(g, column_major);
  });
}

// AvgPoolV2 says `exclusive`, AvgPool3D (like CANN's) `count_include_pad`.
std::unique_ptr<Kernel> MakeAvgPool(const Node& node) {
  const PoolGeometry g = ReadGeometry(node, /*has_dilations=*/false);
  const bool exclusive = node.attrs().Has("exclusive") ? node.attrs().GetBool("exclusive")
                                                       : !node.attrs().GetBool("count_include_pad");
  const int64_t offset_x = node.attrs().Has("offset_x") ? node.attrs().GetInt("offset_x") : 0;
  if (InputDtype(node, 0) == DataType::kInt8) {
    if (offset_x < -128 || offset_x > 127) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("attribute 'offset_x' is {}; for int8 x it must lie in [-128, 127]", offset_x));
    }
    return std::make_unique<Int8AvgPoolKernel>(g, exclusive, offset_x);
  }
  if (offset_x != 0) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'offset_x' is {}; it is int8 x's zero point and must be 0 for {}", offset_x,
                     DataTypeName(InputDtype(node, 0))));
  }
  const bool fast = WantsHighPerformance(node);
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    using T = typename decltype(tag)::type;
    if (g.channels_last && fast) return std::make_unique<ChannelsLastPoolKernel<T, Compute<T>, false>>(g, exclusive);
    if (g.channels_last) return std::make_unique<ChannelsLastPoolKernel<T, double, false>>(g, exclusive);
    if (fast) return std::make_unique<AvgPoolKernel<T, true>>(g, exclusive);
    return std::make_unique<AvgPoolKernel<T, false>>(g, exclusive);
  });
}

// y = zeros, then y[indices[i]] = x[i]. The indices are flat in the
// unpooled shape the window implies; an output_shape that differs from it
// keeps each element's coordinates (ONNX: the extra cells stay zero).
template <typename T>
class MaxUnpoolKernel final : public Kernel {
 public:
  MaxUnpoolKernel(std::string label, std::vector<int64_t> unpooled, std::vector<int64_t> out)
      : label_(std::move(label)), unpooled_(std::move(unpooled)), out_(std::move(out)) {}
  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    const int64_t* indices = ctx.inputs[1].as<const int64_t>();
    T* y = ctx.outputs[0].as<T>();
    const int64_t size = Product(out_);
    const int64_t unpooled_size = Product(unpooled_);
    const std::vector<int64_t> out_strides = RowMajorStrides(out_);
    std::fill(y, y + size, T{});
    for (int64_t i = 0; i < ctx.inputs[0].num_elements(); ++i) {
      int64_t rest = indices[i], offset = 0;
      bool inside = rest >= 0 && rest < unpooled_size;
      for (size_t d = unpooled_.size(); inside && d-- > 0;) {
        const int64_t coordinate = rest % unpooled_[d];
        rest /= unpooled_[d];
        inside = coordinate < out_[d];
        offset += coordinate * out_strides[d];
      }
      if (!inside) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("{}: index {} at position {} is outside the unpooled shape [{}] or the output [{}]",
                                label_, indices[i], i, fmt::join(unpooled_, ","), fmt::join(out_, ",")));
      }
      y[offset] = x[i];
    }
  }

 private:
  std::string label_;
  std::vector<int64_t> unpooled_, out_;
};

std::unique_ptr<Kernel> MakeMaxUnpool(const Node& node) {
  RequireInputDtype(node, 1, {DataType::kInt64});
  if (InputShape(node, 1).NumElements() != InputShape(node, 0).NumElements()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("indices {} must have the shape of x {}", InputShape(node, 1).ToString(),
                     InputShape(node, 0).ToString()));
  }
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() < 3 || y.rank() != x.rank()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x {} must be N, C, spatial... and y {} of the same rank", x.ToString(), y.ToString()));
  }
  const size_t spatial = x.rank() - 2;
  const std::vector<int64_t> kernel = SpatialAttrN(node, "ksize", spatial);
  const std::vector<int64_t> stride = SpatialAttrN(node, "strides", spatial);
  const std::vector<int64_t> pads = PadsAttrN(node, spatial);
  std::vector<int64_t> unpooled = x.dims();
  for (size_t a = 0; a < spatial; ++a) {
    unpooled[a + 2] = (x.dim(a + 2) - 1) * stride[a] + kernel[a] - pads[2 * a] - pads[2 * a + 1];
  }
  return DispatchElementSize(node, InputDtype(node, 0), [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<MaxUnpoolKernel<typename decltype(tag)::type>>(node.Describe(), unpooled, y.dims());
  });
}

}  // namespace

void RegisterPoolingKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MaxPoolV3", DataTypesOf(MaxPoolTypes{}), MakeMaxPool);
  RegisterKernel(registry, "MaxPool3D", DataTypesOf(MaxPoolTypes{}), MakeMaxPool);
  RegisterKernel(registry, "MaxPoolWithArgmax", DataTypesOf(MaxPoolTypes{}), MakeMaxPool);
  RegisterKernel(registry, "AvgPoolV2", DataTypesOf(HalfFloatTypes{}), MakeAvgPool, DualImplModes());
  RegisterKernel(registry, "AvgPoolV2", {DataType::kInt8}, MakeAvgPool);
  RegisterKernel(registry, "AvgPool3D", DataTypesOf(HalfFloatTypes{}), MakeAvgPool, DualImplModes());
  RegisterKernel(registry, "MaxUnpool", DataTypesOf(AllTypes{}), MakeMaxUnpool);
}

}  // namespace ge::device::cpu
