// ConvInteger and QLinearConv: 2-D NCHW convolution of zero-point-shifted
// 8-bit operands with exact int32 accumulation (a direct loop: padding holds
// the input's zero point, so padded taps contribute nothing); QLinearConv adds
// its int32 bias and requantizes with a per-tensor or per-output-channel
// weight scale.
#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/quantize_math.h"

namespace ge::device::cpu {

namespace {

struct ConvPlan {
  int64_t batch, in_channels, in_h, in_w;
  int64_t out_channels, kernel_h, kernel_w, out_h, out_w;
  int64_t groups;
  HW strides, dilations;
  Pads2D pads;

  int64_t output_elements() const { return batch * out_channels * out_h * out_w; }
};

ConvPlan PlanConv(const Node& node, size_t x_input, size_t w_input) {
  RequireNchw(node);
  const Shape& x = InputShape(node, x_input);
  const Shape& w = InputShape(node, w_input);
  const Shape& y = OutputShape(node, 0);
  if (x.rank() != 4 || w.rank() != 4 || y.rank() != 4) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("only 2-D convolutions are supported; x {}, w {}", x.ToString(), w.ToString()));
  }
  ConvPlan plan{x.dim(0), x.dim(1), x.dim(2), x.dim(3), w.dim(0), w.dim(2), w.dim(3), y.dim(2), y.dim(3),
                node.attrs().GetInt("groups"), SpatialAttr(node, "strides"), SpatialAttr(node, "dilations"),
                PadsAttr(node)};
  if (plan.groups < 1 || plan.in_channels % plan.groups != 0 || plan.out_channels % plan.groups != 0 ||
      w.dim(1) * plan.groups != plan.in_channels) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("channels of x {} and w {} do not fit groups {}", x.ToString(), w.ToString(), plan.groups));
  }
  return plan;
}

// y[n, oc, oh, ow] = sum (x - x_zp) * (w[oc] - w_zp[oc]) over the window of group oc belongs to.
template <typename X, typename W>
void AccumulateConv(const ConvPlan& p, const X* x, const W* w, int32_t x_zp, const std::vector<int32_t>& w_zp,
                    int32_t* y) {
  const int64_t group_in = p.in_channels / p.groups, group_out = p.out_channels / p.groups;
  const int64_t planes = p.batch * p.out_channels, plane = p.out_h * p.out_w;
#pragma omp parallel for if (planes * plane * group_in * p.kernel_h * p.kernel_w > kParallelGrain)
  for (int64_t nc = 0; nc < planes; ++nc) {
    const int64_t n = nc / p.out_channels, oc = nc % p.out_channels, g = oc / group_out;
    const int32_t w_zero = w_zp[w_zp.size() == 1 ? 0 : oc];
    const W* filter = w + oc * group_in * p.kernel_h * p.kernel_w;
    int32_t* out = y + nc * plane;
    for (int64_t oh = 0; oh < p.out_h; ++oh) {
      for (int64_t ow = 0; ow < p.out_w; ++ow) {
        int32_t acc = 0;
        for (int64_t ic = 0; ic < group_in; ++ic) {
          const X* channel = x + ((n * p.in_channels) + g * group_in + ic) * p.in_h * p.in_w;
          const W* taps = filter + ic * p.kernel_h * p.kernel_w;
          for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
            const int64_t ih = oh * p.strides.h - p.pads.top + kh * p.dilations.h;
            if (ih < 0 || ih >= p.in_h) continue;
            for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
              const int64_t iw = ow * p.strides.w - p.pads.left + kw * p.dilations.w;
              if (iw < 0 || iw >= p.in_w) continue;
              acc += (static_cast<int32_t>(channel[ih * p.in_w + iw]) - x_zp) *
                     (static_cast<int32_t>(taps[kh * p.kernel_w + kw]) - w_zero);
            }
          }
        }
        out[oh * p.out_w + ow] = acc;
      }
    }
  }
}

template <typename X, typename W>
class ConvIntegerKernel final : public Kernel {
 public:
  ConvIntegerKernel(const Node& node, ConvPlan plan) : label_(node.Describe()), plan_(plan) {}

  void Run(const KernelContext& ctx) const override {
    AccumulateConv(plan_, ctx.inputs[0].as<const X>(), ctx.inputs[1].as<const W>(),
                   ReadInt32s(label_, OptionalInput(ctx, 2), "x_zero_point")[0],
                   ReadInt32s(label_, OptionalInput(ctx, 3), "w_zero_point"), ctx.outputs[0].as<int32_t>());
  }

 private:
  std::string label_;
  ConvPlan plan_;
};

// Inputs x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale,
// y_zero_point, bias. y = saturate(round((acc + bias[oc]) * x_scale *
// w_scale[oc] / y_scale) + y_zp), the multiplier in float32 as ONNX Runtime.
template <typename X, typename W, typename Q>
class QLinearConvKernel final : public Kernel {
 public:
  QLinearConvKernel(const Node& node, ConvPlan plan) : label_(node.Describe()), plan_(plan) {}

  size_t WorkspaceBytes() const override { return plan_.output_elements() * sizeof(int32_t); }

  void Run(const KernelContext& ctx) const override {
    int32_t* acc = static_cast<int32_t*>(ctx.workspace);
    AccumulateConv(plan_, ctx.inputs[0].as<const X>(), ctx.inputs[3].as<const W>(),
                   ReadInt32s(label_, ctx.inputs[2], "x_zero_point")[0],
                   ReadInt32s(label_, ctx.inputs[5], "w_zero_point"), acc);
    const float x_scale = ReadScales(label_, ctx.inputs[1], "x_scale", false)[0];
    const std::vector<float> w_scale = ReadScales(label_, ctx.inputs[4], "w_scale", false);
    const float y_scale = ReadScales(label_, ctx.inputs[6], "y_scale", true)[0];
    const float y_zero = static_cast<float>(ReadInt32s(label_, ctx.inputs[7], "y_zero_point")[0]);
    const TensorView bias_view = OptionalInput(ctx, 8);
    const std::vector<int32_t> bias =
        bias_view.data ? ReadInt32s(label_, bias_view, "bias") : std::vector<int32_t>(plan_.out_channels, 0);
    Q* y = ctx.outputs[0].as<Q>();
    const int64_t planes = plan_.batch * plan_.out_channels, plane = plan_.out_h * plan_.out_w;
#pragma omp parallel for if (planes * plane > kParallelGrain)
    for (int64_t nc = 0; nc < planes; ++nc) {
      const int64_t oc = nc % plan_.out_channels;
      const float multiplier = x_scale * w_scale[w_scale.size() == 1 ? 0 : oc] / y_scale;
      for (int64_t i = nc * plane; i < (nc + 1) * plane; ++i) {
        y[i] = SaturateRound<Q>(std::nearbyint(static_cast<float>(acc[i] + bias[oc]) * multiplier) + y_zero);
      }
    }
  }

 private:
  std::string label_;
  ConvPlan plan_;
};

std::unique_ptr<Kernel> MakeConvInteger(const Node& node) {
  const ConvPlan plan = PlanConv(node, 0, 1);
  CheckParamCount(node, 2, 1, "x_zero_point");
  CheckParamCount(node, 3, plan.out_channels, "w_zero_point");
  return MakeInt8PairKernel<ConvIntegerKernel>(node, 0, 1, plan);
}

std::unique_ptr<Kernel> MakeQLinearConv(const Node& node) {
  const ConvPlan plan = PlanConv(node, 0, 3);
  CheckParamCount(node, 1, 1, "x_scale");
  CheckParamCount(node, 2, 1, "x_zero_point");
  CheckParamCount(node, 4, plan.out_channels, "w_scale");
  CheckParamCount(node, 5, plan.out_channels, "w_zero_point");
  CheckParamCount(node, 6, 1, "y_scale");
  CheckParamCount(node, 7, 1, "y_zero_point");
  if (HasInput(node, 8) && InputShape(node, 8).NumElements() != plan.out_channels) {
    Fail(node, ErrorCode::kInvalidArgument, fmt::format("bias must have {} elements", plan.out_channels));
  }
  return MakeQLinearKernel<QLinearConvKernel>(node, 0, 3, plan);
}

}  // namespace

void RegisterIntegerConvKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "ConvInteger", {DataType::kUInt8, DataType::kInt8}, MakeConvInteger);
  RegisterKernel(registry, "QLinearConv", {DataType::kUInt8, DataType::kInt8}, MakeQLinearConv);
}

}  // namespace ge::device::cpu
