// MaxPoolV3 and AvgPoolV2 on NCHW, with pads, dilations (max), ceil_mode,
// global pooling and exclusive/inclusive averaging.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

struct PoolGeometry {
  int64_t planes = 0;  // N * C
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  HW kernel, stride, dilation;
  Pads2D pads;
};

PoolGeometry ReadGeometry(const Node& node, bool has_dilations) {
  RequireNchw(node);
  const Shape& x = InputShape(node, 0);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() != 4 || y.rank() != 4) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x and y must be 4-D NCHW, got {} and {}", x.ToString(), y.ToString()));
  }
  PoolGeometry g;
  g.planes = x.dim(0) * x.dim(1);
  g.in_h = x.dim(2);
  g.in_w = x.dim(3);
  g.out_h = y.dim(2);
  g.out_w = y.dim(3);
  if (node.attrs().GetBool("global_pooling")) {
    // The window is the whole plane, without padding.
    g.kernel = {g.in_h, g.in_w};
    g.stride = {1, 1};
    g.dilation = {1, 1};
  } else {
    g.kernel = SpatialAttr(node, "ksize");
    g.stride = SpatialAttr(node, "strides");
    g.dilation = has_dilations ? SpatialAttr(node, "dilations") : HW{1, 1};
    g.pads = PadsAttr(node);
  }
  // The planned output must lie within the (padded) input: the first row of
  // every window starts inside it, so no window reads out of bounds.
  if ((g.out_h - 1) * g.stride.h - g.pads.top >= g.in_h + g.pads.bottom ||
      (g.out_w - 1) * g.stride.w - g.pads.left >= g.in_w + g.pads.right) {
    Fail(node, ErrorCode::kInvalidModel,
         fmt::format("output {} does not fit input {} with these ksize/strides/pads", y.ToString(), x.ToString()));
  }
  return g;
}

// Fills every output cell with cell(input plane, h0, w0), where h0/w0 is the
// window's top-left corner in input coordinates (negative inside the padding).
template <typename Cell>
void ForEachOutput(const PoolGeometry& g, const float* x, float* y, Cell&& cell) {
#pragma omp parallel for if (g.planes * g.out_h * g.out_w > kParallelGrain / 16)
  for (int64_t p = 0; p < g.planes; ++p) {
    const float* plane = x + p * g.in_h * g.in_w;
    float* out = y + p * g.out_h * g.out_w;
    for (int64_t oh = 0; oh < g.out_h; ++oh) {
      for (int64_t ow = 0; ow < g.out_w; ++ow) {
        out[oh * g.out_w + ow] = cell(plane, oh * g.stride.h - g.pads.top, ow * g.stride.w - g.pads.left);
      }
    }
  }
}

// Padding never wins: only real input elements take part.
class MaxPoolKernel final : public Kernel {
 public:
  explicit MaxPoolKernel(PoolGeometry g) : g_(g) {}
  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    ForEachOutput(g, ctx.inputs[0].as<const float>(), ctx.outputs[0].as<float>(),
                  [&g](const float* plane, int64_t h0, int64_t w0) {
                    float best = -std::numeric_limits<float>::infinity();
                    for (int64_t i = 0; i < g.kernel.h; ++i) {
                      const int64_t h = h0 + i * g.dilation.h;
                      if (h < 0 || h >= g.in_h) continue;
                      const float* row = plane + h * g.in_w;
                      for (int64_t j = 0; j < g.kernel.w; ++j) {
                        const int64_t w = w0 + j * g.dilation.w;
                        if (w >= 0 && w < g.in_w) best = std::max(best, row[w]);
                      }
                    }
                    return best;
                  });
  }

 private:
  PoolGeometry g_;
};

// exclusive: divide by the number of real input elements in the window.
// inclusive: divide by the window clipped to the padded input (the
// PyTorch/ONNX rule: the extra cells a ceil_mode window reaches past the
// padding are not counted).
class AvgPoolKernel final : public Kernel {
 public:
  AvgPoolKernel(PoolGeometry g, bool exclusive) : g_(g), exclusive_(exclusive) {}
  void Run(const KernelContext& ctx) const override {
    const PoolGeometry& g = g_;
    const bool exclusive = exclusive_;
    ForEachOutput(g, ctx.inputs[0].as<const float>(), ctx.outputs[0].as<float>(),
                  [&g, exclusive](const float* plane, int64_t h0, int64_t w0) {
                    const int64_t h_begin = std::max<int64_t>(h0, 0);
                    const int64_t h_end = std::min(h0 + g.kernel.h, g.in_h);
                    const int64_t w_begin = std::max<int64_t>(w0, 0);
                    const int64_t w_end = std::min(w0 + g.kernel.w, g.in_w);
                    float sum = 0;
                    for (int64_t h = h_begin; h < h_end; ++h) {
                      const float* row = plane + h * g.in_w;
                      for (int64_t w = w_begin; w < w_end; ++w) sum += row[w];
                    }
                    int64_t count;
                    if (exclusive) {
                      count = std::max<int64_t>(h_end - h_begin, 0) * std::max<int64_t>(w_end - w_begin, 0);
                    } else {
                      count = (std::min(h0 + g.kernel.h, g.in_h + g.pads.bottom) - h0) *
                              (std::min(w0 + g.kernel.w, g.in_w + g.pads.right) - w0);
                    }
                    return count > 0 ? sum / static_cast<float>(count) : 0.0f;
                  });
  }

 private:
  PoolGeometry g_;
  bool exclusive_;
};

std::unique_ptr<Kernel> MakeMaxPool(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kFloat});
  return std::make_unique<MaxPoolKernel>(ReadGeometry(node, /*has_dilations=*/true));
}

std::unique_ptr<Kernel> MakeAvgPool(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kFloat});
  return std::make_unique<AvgPoolKernel>(ReadGeometry(node, /*has_dilations=*/false),
                                         node.attrs().GetBool("exclusive"));
}

}  // namespace

void RegisterPoolingKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MaxPoolV3", {DataType::kFloat}, MakeMaxPool);
  RegisterKernel(registry, "AvgPoolV2", {DataType::kFloat}, MakeAvgPool);
}

}  // namespace ge::device::cpu
