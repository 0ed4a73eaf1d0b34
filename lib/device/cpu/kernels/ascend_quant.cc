// AscendQuant, AscendDequant, AscendRequant and AscendAntiQuant (CANN's
// conventions, docs/op-set.md). The arithmetic runs in double on float32
// parameters, so each output is the exactly computed value rounded once:
// to the integer grid (half to even, then saturated) or to the float dtype.
// They sit around every int8 layer, so each inner loop is a contiguous stream
// in a per-CPU clone (cpu_clones.h) that vectorizes 8 doubles wide on
// AVX-512; lib/CMakeLists.txt compiles this file with -ffp-contract=off, as
// an FMA would round x * s + offset once instead of twice.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/quantize_math.h"

namespace ge::device::cpu {

namespace {

// The multiplier of an attribute scale: scale, or scale^2 with sqrt_mode.
double AttrScale(const Node& node) {
  const double scale = node.attrs().GetFloat("scale");
  if (!std::isfinite(scale)) Fail(node, ErrorCode::kInvalidArgument, fmt::format("attribute 'scale' is {}", scale));
  return node.attrs().GetBool("sqrt_mode") ? scale * scale : scale;
}

// An ACL dtype number attribute that must name the node's output dtype, one of `valid`.
void CheckDtypeAttr(const Node& node, const char* attr, std::initializer_list<DataType> valid) {
  const int64_t value = node.attrs().GetInt(attr);
  std::string choices;
  for (DataType dtype : valid) {
    if (value == static_cast<int64_t>(dtype) && node.output(0)->dtype() == dtype) return;
    choices += fmt::format("{}{} ({})", choices.empty() ? "" : ", ", static_cast<int>(dtype), DataTypeName(dtype));
  }
  Fail(node, ErrorCode::kInvalidArgument,
       fmt::format("attribute '{}' is {} with output dtype {}; valid: {}", attr, value,
                   DataTypeName(node.output(0)->dtype()), choices));
}

// std::min(hi, std::max(lo, v)), NaN giving lo, as selects of values:
// std::min/max bind references, which OpenMP simd loops turn into arrays
// that then do not vectorize.
inline double Clamp(double v, double lo, double hi) {
  const double at_least_lo = lo < v ? v : lo;
  return at_least_lo < hi ? at_least_lo : hi;
}

// Round half to even, then clamp to [lo, hi] (integers; NaN gives lo).
// Adding and subtracting 1.5 * 2^52 leaves the nearest integer in the
// default rounding mode for |v| < 2^51, and larger values keep their side of
// the range; unlike std::nearbyint (a libm call on the baseline x86-64 ISA)
// this vectorizes.
inline double SaturateRoundFast(double v, double lo, double hi) {
  constexpr double kRoundingShift = 0x1.8p52;
  return Clamp((v + kRoundingShift) - kRoundingShift, lo, hi);
}

inline double Round(double v) { return SaturateRoundFast(v, -0x1p51, 0x1p51); }

template <typename Q>
constexpr double kLowest = std::numeric_limits<Q>::lowest();
template <typename Q>
constexpr double kHighest = std::numeric_limits<Q>::max();

// v (|v| < 2^51) rounded half to even, as Q: adding 1.5 * 2^52 leaves the
// integer in the low bits of the sum, which stays a double add and a bit
// reinterpretation that vectorize, unlike conversion instructions narrowing
// to int8. The integer must fit Q (clamp v to Q's range first: rounding is
// monotone and keeps integers, so clamping before or after it agrees).
template <typename Q>
inline Q RoundToInteger(double v) {
  constexpr double kRoundingShift = 0x1.8p52;
  return static_cast<Q>(std::bit_cast<int64_t>(v + kRoundingShift));
}

// Q's range [lo, hi] comes in as arguments, and the kernels pass them from
// members: constant bounds, propagated into the loop (PerCpu inlines it into
// its caller), let GCC turn the clamp into branches that do not vectorize.
template <typename X, typename Q>
void QuantizeSpan(const X* x, Q* y, int64_t count, double scale, double offset, double lo, double hi) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) {
    y[i] = RoundToInteger<Q>(Clamp(static_cast<double>(Load(x[i])) * scale + offset, lo, hi));
  }
}

// y = saturate(round_half_even(x * s + offset)).
template <typename X, typename Q>
class AscendQuantKernel final : public Kernel {
 public:
  AscendQuantKernel(double scale, double offset) : scale_(scale), offset_(offset) {}

  void Run(const KernelContext& ctx) const override {
    const X* x = ctx.inputs[0].as<const X>();
    Q* y = ctx.outputs[0].as<Q>();
    ForEachChunk(ctx.inputs[0].num_elements(), [&](int64_t begin, int64_t end) {
      PerCpu([&] { QuantizeSpan(x + begin, y + begin, end - begin, scale_, offset_, lo_, hi_); });
    });
  }

 private:
  double scale_, offset_;
  double lo_ = kLowest<Q>, hi_ = kHighest<Q>;  // see QuantizeSpan
};

std::unique_ptr<Kernel> MakeAscendQuant(const Node& node) {
  if (node.attrs().GetString("round_mode") != "Round") {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'round_mode' is '{}'; valid: Round", node.attrs().GetString("round_mode")));
  }
  CheckDtypeAttr(node, "dst_type", {DataType::kInt8, DataType::kInt16});
  const double scale = AttrScale(node);
  const double offset = node.attrs().GetFloat("offset");
  return DispatchDtype(node, InputDtype(node, 0), TypeList<float, _Float16>{}, [&](auto x_tag) {
    return DispatchDtype(node, node.output(0)->dtype(), TypeList<int8_t, int16_t>{},
                         [&](auto q_tag) -> std::unique_ptr<Kernel> {
                           using X = typename decltype(x_tag)::type;
                           using Q = typename decltype(q_tag)::type;
                           return std::make_unique<AscendQuantKernel<X, Q>>(scale, offset);
                         });
  });
}

// One uint64 word of deq_scale / req_scale: bits 0-31 the fp32 scale, 32-39
// the shift N, 40-48 (requant only) a 9-bit two's-complement offset.
struct PackedScale {
  double scale;
  int shift;
  int offset;
};

PackedScale Unpack(uint64_t word, bool sqrt_mode) {
  const double scale = std::bit_cast<float>(static_cast<uint32_t>(word));
  const int raw_offset = static_cast<int>((word >> 40) & 0x1FF);
  return {sqrt_mode ? scale * scale : scale, static_cast<int>((word >> 32) & 0xFF),
          raw_offset >= 256 ? raw_offset - 512 : raw_offset};
}

// x * scale; with a shift N: clip_int16(floor(x / 2^N)) * scale * 2^N (the
// int16 intermediate of the hardware's shifted path), computed as
// clip(floor(x / 2^N)) * (scale * 2^N), exact in double. `shift` is N
// capped at 31 (>> floors; larger shifts leave the sign); the clip is two
// selects, which vectorize where a nested one becomes branches.
template <bool kShifted>
double ScaledValue(int32_t x, int shift, double multiplier) {
  if constexpr (!kShifted) return static_cast<double>(x) * multiplier;
  const int32_t shifted = x >> shift;
  const int32_t at_least_min = shifted > INT16_MIN ? shifted : INT16_MIN;
  return static_cast<double>(at_least_min < INT16_MAX ? at_least_min : INT16_MAX) * multiplier;
}

// x viewed around channel_axis for a packed scale of 1 or C words.
AxisView PackedScaleView(const Node& node, const char* scale_name) {
  const Shape& scale = InputShape(node, 1);
  RequireInputDtype(node, 1, {DataType::kUInt64});
  const int64_t count = scale.NumElements();
  if (scale.rank() > 1 || count < 1) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("input '{}' {} must be 1-D with 1 or C elements", scale_name, scale.ToString()));
  }
  return ChannelView(node, count, "channel_axis", fmt::format("input '{}'", scale_name));
}

// Bounds of dequant / requant, passed at run time (see QuantizeSpan):
// relu_floor is 0 with relu, else -inf; [lo, hi] is int8's range.
struct ScaleBounds {
  double relu_floor, lo, hi;
};

// Dequant (Y float) or requant (Y int8) of `count` elements sharing one packed scale.
template <bool kShifted, typename Y>
inline void ScaleRun(const int32_t* x, Y* y, int64_t count, const PackedScale& p, const ScaleBounds& bounds) {
  const double multiplier = kShifted ? std::ldexp(p.scale, p.shift) : p.scale;
  const double relu_floor = bounds.relu_floor, lo = bounds.lo, hi = bounds.hi;
  const int shift = std::min(p.shift, 31);
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) {
    const double scaled = ScaledValue<kShifted>(x[i], shift, multiplier);
    const double v = relu_floor < scaled ? scaled : relu_floor;  // std::max(relu_floor, scaled)
    if constexpr (std::is_same_v<Y, int8_t>) {
      // Round first, then add the offset: ties go to the even integer of x * scale.
      y[i] = RoundToInteger<int8_t>(Clamp(Round(v) + p.offset, lo, hi));
    } else {
      y[i] = Store<Y>(static_cast<float>(v));
    }
  }
}

// The flat elements [begin, end) of x viewed as rows of `inner` elements, row
// r scaled by scales[r % channels] (channels 1: per tensor).
template <typename Y>
void ScaleSpan(const int32_t* x, Y* y, int64_t begin, int64_t end, int64_t inner,
                             const PackedScale* scales, int64_t channels, const ScaleBounds& bounds) {
  for (int64_t i = begin; i < end;) {
    const int64_t row = i / inner;
    const int64_t stop = std::min(end, (row + 1) * inner);
    const PackedScale& p = scales[row % channels];
    if (p.shift == 0) {
      ScaleRun<false>(x + i, y + i, stop - i, p, bounds);
    } else {
      ScaleRun<true>(x + i, y + i, stop - i, p, bounds);
    }
    i = stop;
  }
}

// Dequant (Y float) or requant (Y int8) of int32 x with packed scales.
template <typename Y>
class PackedScaleKernel final : public Kernel {
 public:
  PackedScaleKernel(AxisView layout, bool sqrt_mode, bool relu)
      : layout_(layout),
        sqrt_mode_(sqrt_mode),
        bounds_{relu ? 0.0 : -std::numeric_limits<double>::infinity(), kLowest<int8_t>, kHighest<int8_t>} {}

  void Run(const KernelContext& ctx) const override {
    const uint64_t* words = ctx.inputs[1].as<const uint64_t>();
    std::vector<PackedScale> scales(ctx.inputs[1].num_elements());
    for (size_t c = 0; c < scales.size(); ++c) scales[c] = Unpack(words[c], sqrt_mode_);
    const int32_t* x = ctx.inputs[0].as<const int32_t>();
    Y* y = ctx.outputs[0].as<Y>();
    const int64_t inner = layout_.inner, channels = scales.size() == 1 ? 1 : layout_.length;
    ForEachChunk(layout_.outer * layout_.length * inner, [&](int64_t begin, int64_t end) {
      PerCpu([&] { ScaleSpan(x, y, begin, end, inner, scales.data(), channels, bounds_); });
    });
  }

 private:
  AxisView layout_;
  bool sqrt_mode_;
  ScaleBounds bounds_;  // a member, not constants in Run (see QuantizeSpan)
};

std::unique_ptr<Kernel> MakeAscendDequant(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kInt32});
  CheckDtypeAttr(node, "dtype", {DataType::kFloat, DataType::kFloat16});
  const AxisView layout = PackedScaleView(node, "deq_scale");
  const bool sqrt_mode = node.attrs().GetBool("sqrt_mode"), relu = node.attrs().GetBool("relu_flag");
  return DispatchDtype(
      node, node.output(0)->dtype(), TypeList<float, _Float16>{}, [&](auto tag) -> std::unique_ptr<Kernel> {
        return std::make_unique<PackedScaleKernel<typename decltype(tag)::type>>(layout, sqrt_mode, relu);
      });
}

std::unique_ptr<Kernel> MakeAscendRequant(const Node& node) {
  RequireInputDtype(node, 0, {DataType::kInt32});
  if (node.output(0)->dtype() != DataType::kInt8) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("output y is {}; valid: int8", DataTypeName(node.output(0)->dtype())));
  }
  return std::make_unique<PackedScaleKernel<int8_t>>(PackedScaleView(node, "req_scale"), /*sqrt_mode=*/false,
                                                     node.attrs().GetBool("relu_flag"));
}

template <typename Q, typename Y>
void AntiQuantizeSpan(const Q* x, Y* y, int64_t count, double scale, double offset) {
#pragma omp simd
  for (int64_t i = 0; i < count; ++i) y[i] = Store<Y>(static_cast<float>((static_cast<double>(x[i]) + offset) * scale));
}

// y = (x + offset) * s.
template <typename Q, typename Y>
class AscendAntiQuantKernel final : public Kernel {
 public:
  AscendAntiQuantKernel(double scale, double offset) : scale_(scale), offset_(offset) {}

  void Run(const KernelContext& ctx) const override {
    const Q* x = ctx.inputs[0].as<const Q>();
    Y* y = ctx.outputs[0].as<Y>();
    ForEachChunk(ctx.inputs[0].num_elements(), [&](int64_t begin, int64_t end) {
      PerCpu([&] { AntiQuantizeSpan(x + begin, y + begin, end - begin, scale_, offset_); });
    });
  }

 private:
  double scale_, offset_;
};

std::unique_ptr<Kernel> MakeAscendAntiQuant(const Node& node) {
  CheckDtypeAttr(node, "dtype", {DataType::kFloat, DataType::kFloat16});
  const double scale = AttrScale(node);
  const double offset = node.attrs().GetFloat("offset");
  return DispatchDtype(node, InputDtype(node, 0), TypeList<int8_t, int16_t>{}, [&](auto q_tag) {
    return DispatchDtype(node, node.output(0)->dtype(), TypeList<float, _Float16>{},
                         [&](auto y_tag) -> std::unique_ptr<Kernel> {
                           using Q = typename decltype(q_tag)::type;
                           using Y = typename decltype(y_tag)::type;
                           return std::make_unique<AscendAntiQuantKernel<Q, Y>>(scale, offset);
                         });
  });
}

}  // namespace

void RegisterAscendQuantKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "AscendQuant", {DataType::kFloat, DataType::kFloat16}, MakeAscendQuant);
  RegisterKernel(registry, "AscendDequant", {DataType::kInt32}, MakeAscendDequant);
  RegisterKernel(registry, "AscendRequant", {DataType::kInt32}, MakeAscendRequant);
  RegisterKernel(registry, "AscendAntiQuant", {DataType::kInt8, DataType::kInt16}, MakeAscendAntiQuant);
}

}  // namespace ge::device::cpu
