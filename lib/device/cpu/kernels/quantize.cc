// QuantizeLinear, DequantizeLinear (ONNX semantics, per tensor or per axis)
// and DynamicQuantizeLinear. Scales and zero points are read at run time, so
// they may be graph inputs as well as constants.
#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/quantize_math.h"

namespace ge::device::cpu {

namespace {

// Checks that the zero point has as many entries as the scale (or one).
void CheckZeroPointCount(const Node& node, int64_t channels) {
  const int64_t zp = ParamCount(node, 2);
  if (zp != 1 && zp != channels) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("the zero point has {} elements but the scale has {}", zp, channels));
  }
}

// Parameter c of a per-tensor (one value) or per-axis vector.
template <typename V>
V At(const std::vector<V>& params, int64_t c) {
  return params[params.size() == 1 ? 0 : c];
}

// Calls row(c, begin, end) for each [outer, channel] row of `layout`: the
// elements [begin, end) all belong to channel c. Rows run in parallel when
// there is enough work.
template <typename RowFn>
void ForEachChannelRow(const AxisView& layout, const RowFn& row) {
  const int64_t rows = layout.outer * layout.length;
  const int64_t inner = layout.inner;
  ParallelFor(rows, rows * inner > kParallelGrain, [&](int64_t r) {
    row(r % layout.length, r * inner, (r + 1) * inner);
  });
}

// y = saturate(round_half_even(x / scale) + zero_point). Float32 x divides in
// float32 and int32 x in float64, as the ONNX reference does.
template <typename X, typename Q>
class QuantizeLinearKernel final : public Kernel {
 public:
  QuantizeLinearKernel(const Node& node, AxisView layout) : label_(node.Describe()), layout_(layout) {}

  void Run(const KernelContext& ctx) const override {
    using F = std::conditional_t<std::is_same_v<X, float>, float, double>;
    const std::vector<float> scales = ReadScales(label_, ctx.inputs[1], "y_scale", /*nonzero=*/true);
    const std::vector<int32_t> zero_points = ReadInt32s(label_, OptionalInput(ctx, 2), "the zero point");
    const X* x = ctx.inputs[0].as<const X>();
    Q* y = ctx.outputs[0].as<Q>();
    ForEachChannelRow(layout_, [&](int64_t c, int64_t begin, int64_t end) {
      const F scale = static_cast<F>(At(scales, c));
      const F zero_point = static_cast<F>(At(zero_points, c));
      for (int64_t i = begin; i < end; ++i) {
        y[i] = SaturateRound<Q>(std::nearbyint(static_cast<F>(x[i]) / scale) + zero_point);
      }
    });
  }

 private:
  std::string label_;
  AxisView layout_;
};

// y = (x - zero_point) * scale in float32.
template <typename X>
class DequantizeLinearKernel final : public Kernel {
 public:
  DequantizeLinearKernel(const Node& node, AxisView layout) : label_(node.Describe()), layout_(layout) {}

  void Run(const KernelContext& ctx) const override {
    const std::vector<float> scales = ReadScales(label_, ctx.inputs[1], "x_scale", /*nonzero=*/false);
    const std::vector<int32_t> zero_points = ReadInt32s(label_, OptionalInput(ctx, 2), "the zero point");
    const X* x = ctx.inputs[0].as<const X>();
    float* y = ctx.outputs[0].as<float>();
    ForEachChannelRow(layout_, [&](int64_t c, int64_t begin, int64_t end) {
      const float scale = At(scales, c);
      const int64_t zero_point = At(zero_points, c);
      for (int64_t i = begin; i < end; ++i) y[i] = static_cast<float>(static_cast<int64_t>(x[i]) - zero_point) * scale;
    });
  }

 private:
  std::string label_;
  AxisView layout_;
};

// ONNX DynamicQuantizeLinear: the range [min(0, min x), max(0, max x)] maps
// onto [0, 255]: y_scale = range / 255, y_zero_point = saturate(round(-min /
// y_scale)), y = saturate(round(x / y_scale) + y_zero_point). An all-zero x
// has scale 0: then the zero point and y are 0.
class DynamicQuantizeLinearKernel final : public Kernel {
 public:
  void Run(const KernelContext& ctx) const override {
    const float* x = ctx.inputs[0].as<const float>();
    const int64_t count = ctx.inputs[0].num_elements();
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < count; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    const float scale = (hi - lo) / 255.0f;
    const uint8_t zero_point = scale == 0.0f ? 0 : SaturateRound<uint8_t>(-lo / scale);
    uint8_t* y = ctx.outputs[0].as<uint8_t>();
    ParallelFor(count, count > kParallelGrain, [&](int64_t i) {
      y[i] = scale == 0.0f ? 0 : SaturateRound<uint8_t>(std::nearbyint(x[i] / scale) + float(zero_point));
    });
    *ctx.outputs[1].as<float>() = scale;
    *ctx.outputs[2].as<uint8_t>() = zero_point;
  }
};

std::unique_ptr<Kernel> MakeQuantizeLinear(const Node& node) {
  const int64_t channels = ParamCount(node, 1);
  CheckZeroPointCount(node, channels);
  const AxisView layout = ChannelView(node, channels, "axis", "the scale");
  const DataType out = node.output(0)->dtype();
  return DispatchDtype(node, InputDtype(node, 0), TypeList<float, int32_t>{}, [&](auto x_tag) {
    using X = typename decltype(x_tag)::type;
    return DispatchDtype(node, out, TypeList<uint8_t, int8_t>{}, [&](auto q_tag) -> std::unique_ptr<Kernel> {
      return std::make_unique<QuantizeLinearKernel<X, typename decltype(q_tag)::type>>(node, layout);
    });
  });
}

std::unique_ptr<Kernel> MakeDequantizeLinear(const Node& node) {
  const int64_t channels = ParamCount(node, 1);
  CheckZeroPointCount(node, channels);
  const AxisView layout = ChannelView(node, channels, "axis", "the scale");
  return DispatchDtype(node, InputDtype(node, 0), TypeList<uint8_t, int8_t, int32_t>{},
                       [&](auto tag) -> std::unique_ptr<Kernel> {
                         return std::make_unique<DequantizeLinearKernel<typename decltype(tag)::type>>(node, layout);
                       });
}

}  // namespace

void RegisterQuantizeKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "DynamicQuantizeLinear", {DataType::kFloat},
                 [](const Node&) -> std::unique_ptr<Kernel> { return std::make_unique<DynamicQuantizeLinearKernel>(); });
  RegisterKernel(registry, "QuantizeLinear", {DataType::kFloat, DataType::kInt32}, MakeQuantizeLinear);
  RegisterKernel(registry, "DequantizeLinear", {DataType::kUInt8, DataType::kInt8, DataType::kInt32},
                 MakeDequantizeLinear);
}

}  // namespace ge::device::cpu
