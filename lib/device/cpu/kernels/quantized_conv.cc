// The quantized form of Conv2D / Conv3D / Conv2DTranspose: x int8 or int16
// (zero point offset_x), filter int8, optional bias int32, y int32 =
// sum((x - offset_x) * w) + bias, where padded taps hold offset_x and so add
// nothing.
//
// int8 x with a constant filter runs oneDNN's int8 convolution (VNNI on CPUs
// that have it): the filter is packed once, x's zero point is a runtime
// zero-point attribute, and since oneDNN's fast int8 kernels want channels
// last, x and y pass through reorders to and from plain NCHW tensors (a
// QuantConv2D that the nhwc_layout pass moved to NHWC needs none). On CPUs
// without VNNI, x goes in as u8 (written channels last by the kernel) and a
// filter wider than [-64, 64] is split in two along the input channels
// (int8_pair_sums.h), so the sums stay exact. Everything else (int16 x, a
// runtime filter, the transposed convolution) runs the direct kernel of
// direct_conv.cc on the operands widened to double, which is exact: every
// partial sum is an integer far below 2^53. The int32 result saturates.
#include <bit>
#include <limits>
#include <optional>

#include <fmt/core.h>

#include "device/cpu/kernels/conv_geometry.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/int8_pair_sums.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/quantize_math.h"

namespace ge::device::cpu {

namespace {

using Tag = dnnl::memory::format_tag;
using Type = dnnl::memory::data_type;

constexpr size_t kAlign = 64;
size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The dtype rule of the quantized form and offset_x's range; returns offset_x.
int32_t CheckQuantizedOperands(const Node& node, ConvInputs inputs) {
  RequireInputDtype(node, inputs.filter, {DataType::kInt8});
  if (HasInput(node, inputs.bias)) RequireInputDtype(node, inputs.bias, {DataType::kInt32});
  if (HasInput(node, inputs.offset_w)) {
    Fail(node, ErrorCode::kUnsupported, "offset_w (a filter zero point) is not supported; the filter is symmetric");
  }
  const int64_t offset_x = node.attrs().GetInt("offset_x");
  const bool int8 = InputDtype(node, inputs.x) == DataType::kInt8;
  const int64_t lo = int8 ? std::numeric_limits<int8_t>::lowest() : std::numeric_limits<int16_t>::lowest();
  const int64_t hi = int8 ? std::numeric_limits<int8_t>::max() : std::numeric_limits<int16_t>::max();
  if (offset_x < lo || offset_x > hi) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'offset_x' is {}; for {} x it must lie in [{}, {}]", offset_x,
                     DataTypeName(InputDtype(node, inputs.x)), lo, hi));
  }
  return static_cast<int32_t>(offset_x);
}

// oneDNN int8 convolution between plain NC[D]HW tensors, or NHWC ones
// (QuantConv2D with data_format NHWC), which its fast kernels read and write
// as they are: no reorders.
// What QuantConv2D folds into the convolution: its AscendDequant (float32
// out) or AscendRequant (int8 out), as oneDNN output scales, a relu post-op
// and a dst zero point, so the int32 sums never leave the primitive.
struct FusedQuantOutput {
  Type dst_type = Type::s32;
  std::vector<float> scales;  // one, or one per output channel
  int32_t zero_point = 0;     // the requant offset
  bool relu = false;
};

// Decodes QuantConv2D's uint64 scale words (docs/quantization.md): fp32 scale
// in bits 0-31, shift N in 32-39 (only 0 here), the requant offset in 40-48.
FusedQuantOutput ReadFusedQuantOutput(const Node& node) {
  constexpr size_t kScaleInput = 2;
  const Tensor* words = node.input(kScaleInput) != nullptr ? node.input(kScaleInput)->constant() : nullptr;
  if (words == nullptr) Fail(node, ErrorCode::kUnsupported, "input 'scale' must be a constant");
  FusedQuantOutput out;
  const bool int8 = node.attrs().GetInt("dtype") == static_cast<int64_t>(DataType::kInt8);
  out.dst_type = int8 ? Type::s8 : Type::f32;
  out.relu = node.attrs().GetBool("relu_flag");
  for (int64_t c = 0; c < words->num_elements(); ++c) {
    const uint64_t word = words->data_as<uint64_t>()[c];
    if (((word >> 32) & 0xff) != 0) Fail(node, ErrorCode::kUnsupported, "scale words with a shift N are not supported");
    out.scales.push_back(std::bit_cast<float>(static_cast<uint32_t>(word)));
    const auto raw = static_cast<int32_t>((word >> 40) & 0x1ff);
    const int32_t offset = raw >= 256 ? raw - 512 : raw;
    if (!int8 && offset != 0) Fail(node, ErrorCode::kInvalidArgument, "a float32 output takes no offset in 'scale'");
    if (c > 0 && offset != out.zero_point) {
      Fail(node, ErrorCode::kUnsupported, "the requant offset must be the same for every channel");
    }
    out.zero_point = offset;
  }
  return out;
}

// How x reaches the primitive on a CPU without VNNI: as u8, written by the
// kernel itself in channels-last order, each group's channels twice over when
// the filter is split (int8_pair_sums.h).
struct UnsignedSource {
  int64_t batch = 0, channels = 0, spatial = 0, group_channels = 0;
  bool channels_last = false;  // of the user's x
  bool doubled = false;

  int64_t bytes() const { return batch * spatial * channels * (doubled ? 2 : 1); }

  void Write(const int8_t* x, uint8_t* out) const {
    if (channels_last && !doubled) {
      // The common case (QuantConv2D after the nhwc_layout pass): one flat pass.
      ForEachChunk(bytes(), [&](int64_t begin, int64_t end) { ToUnsignedSpan(x + begin, out + begin, end - begin); });
      return;
    }
    const int64_t out_channels = channels * (doubled ? 2 : 1);
    const int64_t channel_stride = channels_last ? 1 : spatial;
    const int64_t groups = channels / group_channels;
#pragma omp parallel for if (bytes() > kParallelGrain)
    for (int64_t pixel = 0; pixel < batch * spatial; ++pixel) {
      const int64_t n = pixel / spatial, s = pixel % spatial;
      const int8_t* in = channels_last ? x + pixel * channels : x + n * channels * spatial + s;
      uint8_t* row = out + pixel * out_channels;
      for (int64_t group = 0; group < groups; ++group) {
        uint8_t* high = row + group * (doubled ? 2 : 1) * group_channels;
        const int8_t* group_in = in + group * group_channels * channel_stride;
        for (int64_t i = 0; i < group_channels; ++i) high[i] = ToUnsigned(group_in[i * channel_stride]);
        if (doubled) std::copy(high, high + group_channels, high + group_channels);
      }
    }
  }
};

// The filter [Cout, Cin/groups, k...] with each row's input channels doubled:
// first the pair-safe high parts, then the low parts.
std::vector<int8_t> SplitFilter(const ConvGeometry& g, const int8_t* filter) {
  const int64_t taps = g.filter.NumElements() / g.out_channels;
  std::vector<int8_t> split(static_cast<size_t>(2 * g.filter.NumElements()));
  for (int64_t o = 0; o < g.out_channels; ++o) {
    for (int64_t t = 0; t < taps; ++t) {
      const int8_t w = filter[o * taps + t];
      split[(2 * o) * taps + t] = PairSafeHigh(w);
      split[(2 * o + 1) * taps + t] = PairSafeLow(w);
    }
  }
  return split;
}

class DnnlInt8ConvKernel final : public Kernel {
 public:
  DnnlInt8ConvKernel(const Node& node, const ConvGeometry& g, int32_t offset_x, const FusedQuantOutput& output)
      : label_(node.Describe()), inputs_(g.inputs) {
    const bool volumetric = g.kernel.size() == 3;
    const Tag data_tag = g.channels_last ? Tag::nhwc : volumetric ? Tag::ncdhw : Tag::nchw;
    src_user_ = dnnl::memory::desc(ToDnnlDims(ChannelsFirstDims(g, g.x)), Type::s8, data_tag);
    dst_user_ = dnnl::memory::desc(ToDnnlDims(ChannelsFirstDims(g, g.y)), output.dst_type, data_tag);
    const Tensor& filter = *node.input(g.inputs.filter)->constant();
    const std::span<const int8_t> filter_values(filter.data_as<int8_t>(), static_cast<size_t>(filter.num_elements()));
    const int64_t group_channels = g.in_channels / g.groups;
    std::vector<int8_t> split_filter;
    if (!DnnlInt8HasVnni()) {
      const std::vector<int64_t> x_dims = ChannelsFirstDims(g, g.x);
      int64_t spatial = 1;
      for (size_t a = 2; a < x_dims.size(); ++a) spatial *= x_dims[a];
      unsigned_src_ = UnsignedSource{x_dims[0], g.in_channels, spatial, group_channels, g.channels_last};
      unsigned_src_->doubled = group_channels > 1 && !WeightsArePairSafe(filter_values);
      if (unsigned_src_->doubled) split_filter = SplitFilter(g, filter_values.data());
      offset_x += kUnsignedShift;
    }
    const int64_t filter_channels = group_channels * (split_filter.empty() ? 1 : 2);
    const int64_t out_channels = g.out_channels;
    dnnl::memory::dims weight_dims;
    Tag weight_tag;
    if (g.groups == 1) {
      weight_dims = {out_channels, filter_channels};
      weight_tag = volumetric ? Tag::oidhw : Tag::oihw;
    } else {
      weight_dims = {g.groups, out_channels / g.groups, filter_channels};
      weight_tag = volumetric ? Tag::goidhw : Tag::goihw;
    }
    weight_dims.insert(weight_dims.end(), g.kernel.begin(), g.kernel.end());
    const dnnl::memory::desc weights_user(weight_dims, Type::s8, weight_tag);
    if (g.has_bias) bias_ = dnnl::memory::desc({out_channels}, Type::s32, Tag::a);
    dnnl::memory::dims strides, dilates, padding_l, padding_r;
    for (size_t a = 0; a < g.kernel.size(); ++a) {
      strides.push_back(g.stride[a]);
      dilates.push_back(g.dilation[a] - 1);
      padding_l.push_back(g.pad_begin[a]);
      padding_r.push_back(g.pad_end[a]);
    }
    dnnl::primitive_attr attr = DnnlAttributes();
    if (offset_x != 0) {
      attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
      zero_point_ = ZeroPoint(offset_x);
    }
    if (!output.scales.empty()) {
      attr.set_output_scales(output.scales.size() == 1 ? 0 : 1 << 1, output.scales);
    }
    if (output.relu) {
      dnnl::post_ops post_ops;
      post_ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(post_ops);
    }
    if (output.zero_point != 0) {
      attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
      dst_zero_point_ = ZeroPoint(output.zero_point);
    }
    using Conv = dnnl::convolution_forward;
    dnnl::memory::desc any_src(src_user_.dims(), Type::s8, Tag::any);
    if (unsigned_src_) {
      dnnl::memory::dims dims = src_user_.dims();
      dims[1] = g.groups * filter_channels;
      any_src = dnnl::memory::desc(dims, Type::u8, volumetric ? Tag::ndhwc : Tag::nhwc);
    }
    const dnnl::memory::desc any_dst(dst_user_.dims(), output.dst_type, Tag::any);
    const dnnl::memory::desc any_weights(weight_dims, Type::s8, Tag::any);
    Conv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, any_src, any_weights,
                    bias_ ? *bias_ : dnnl::memory::desc(), any_dst, strides, dilates, padding_l, padding_r);
    Conv::primitive_desc pd(desc, attr, CpuEngine());
    primitive_ = Conv(pd);
    src_ = pd.src_desc();
    dst_ = pd.dst_desc();
    size_t scratchpad = pd.scratchpad_desc().get_size();
    packed_weights_ = PackConstant(filter, split_filter.empty() ? filter.data() : split_filter.data(), weights_user,
                                   pd.weights_desc());
    if (!unsigned_src_ && src_ != src_user_) {  // an unsigned x is written by UnsignedSource instead
      dnnl::reorder::primitive_desc reorder_pd(CpuEngine(), src_user_, CpuEngine(), src_, DnnlAttributes());
      src_reorder_ = dnnl::reorder(reorder_pd);
      scratchpad = std::max(scratchpad, reorder_pd.scratchpad_desc().get_size());
    }
    if (dst_ != dst_user_) {
      dnnl::reorder::primitive_desc reorder_pd(CpuEngine(), dst_, CpuEngine(), dst_user_, DnnlAttributes());
      dst_reorder_ = dnnl::reorder(reorder_pd);
      scratchpad = std::max(scratchpad, reorder_pd.scratchpad_desc().get_size());
    }
    // One scratchpad region serves the three primitives, which run one after the other.
    scratchpad_ = dnnl::memory::desc({static_cast<dnnl::memory::dim>(scratchpad)}, Type::u8, Tag::a);
    src_offset_ = AlignUp(scratchpad);
    dst_offset_ = src_offset_ + (src_reorder_ || unsigned_src_ ? AlignUp(src_.get_size()) : 0);
    workspace_ = dst_offset_ + (dst_reorder_ ? AlignUp(dst_.get_size()) : 0);
  }

  size_t WorkspaceBytes() const override { return workspace_; }

  void Run(const KernelContext& ctx) const override {
    char* workspace = static_cast<char*>(ctx.workspace);
    void* scratchpad = scratchpad_.get_size() > 0 ? workspace : nullptr;
    dnnl::memory src = WrapBuffer(src_user_, ctx.inputs[inputs_.x].data);
    if (unsigned_src_) {
      unsigned_src_->Write(ctx.inputs[inputs_.x].as<const int8_t>(),
                           reinterpret_cast<uint8_t*>(workspace + src_offset_));
      src = WrapBuffer(src_, workspace + src_offset_);
    } else if (src_reorder_) {
      dnnl::memory reordered = WrapBuffer(src_, workspace + src_offset_);
      ExecuteDnnl(label_, *src_reorder_, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, reordered}}, scratchpad_, scratchpad);
      src = reordered;
    }
    dnnl::memory dst =
        WrapBuffer(dst_reorder_ ? dst_ : dst_user_, dst_reorder_ ? workspace + dst_offset_ : ctx.outputs[0].data);
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, packed_weights_}, {DNNL_ARG_DST, dst}};
    if (bias_) args.emplace(DNNL_ARG_BIAS, WrapBuffer(*bias_, ctx.inputs[inputs_.bias].data));
    if (zero_point_) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC, *zero_point_);
    if (dst_zero_point_) args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST, *dst_zero_point_);
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, scratchpad);
    if (dst_reorder_) {
      ExecuteDnnl(label_, *dst_reorder_,
                  {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, WrapBuffer(dst_user_, ctx.outputs[0].data)}}, scratchpad_,
                  scratchpad);
    }
  }

 private:
  std::string label_;
  ConvInputs inputs_;
  dnnl::primitive primitive_;
  dnnl::memory::desc src_user_, dst_user_, src_, dst_, scratchpad_;
  std::optional<dnnl::memory::desc> bias_;
  PackedConstant packed_weights_;
  static dnnl::memory ZeroPoint(int32_t value) {
    dnnl::memory memory({{1}, Type::s32, Tag::a}, CpuEngine());
    *static_cast<int32_t*>(memory.get_data_handle()) = value;
    return memory;
  }

  std::optional<dnnl::memory> zero_point_, dst_zero_point_;
  std::optional<UnsignedSource> unsigned_src_;
  std::optional<dnnl::reorder> src_reorder_, dst_reorder_;
  size_t src_offset_ = 0, dst_offset_ = 0, workspace_ = 0;
};

// The direct kernel on double operands: x - offset_x, the filter and the bias
// widened into the workspace, the double result saturated to int32.
template <typename X>
class WidenedConvKernel final : public Kernel {
 public:
  WidenedConvKernel(const Node& node, ConvGeometry g, int32_t offset_x)
      : inputs_(g.inputs), offset_x_(offset_x), has_bias_(g.has_bias), x_shape_(g.x), filter_shape_(g.filter) {
    g.dtype = DataType::kDouble;
    direct_ = MakeDirectConv(node, g);
    x_count_ = g.x.NumElements();
    filter_count_ = g.filter.NumElements();
    bias_count_ = g.has_bias ? g.y.dim(1) : 0;
    bias_shape_ = Shape({bias_count_});
    y_shape_ = g.y;
    y_count_ = g.y.NumElements();
  }

  size_t WorkspaceBytes() const override {
    return (x_count_ + filter_count_ + bias_count_ + y_count_) * sizeof(double) + direct_->WorkspaceBytes();
  }

  void Run(const KernelContext& ctx) const override {
    double* x = static_cast<double*>(ctx.workspace);
    double* filter = x + x_count_;
    double* bias = filter + filter_count_;
    double* y = bias + bias_count_;
    const X* x_in = ctx.inputs[inputs_.x].as<const X>();
    const int8_t* filter_in = ctx.inputs[inputs_.filter].as<const int8_t>();
#pragma omp parallel for simd if (x_count_ > kParallelGrain)
    for (int64_t i = 0; i < x_count_; ++i) x[i] = static_cast<double>(int32_t{x_in[i]} - offset_x_);
    for (int64_t i = 0; i < filter_count_; ++i) filter[i] = filter_in[i];
    if (has_bias_) {
      const int32_t* bias_in = ctx.inputs[inputs_.bias].as<const int32_t>();
      for (int64_t i = 0; i < bias_count_; ++i) bias[i] = bias_in[i];
    }
    std::vector<TensorView> inputs(ctx.inputs.begin(), ctx.inputs.end());
    inputs[inputs_.x] = {DataType::kDouble, &x_shape_, x};
    inputs[inputs_.filter] = {DataType::kDouble, &filter_shape_, filter};
    if (has_bias_) inputs[inputs_.bias] = {DataType::kDouble, &bias_shape_, bias};
    const TensorView output{DataType::kDouble, &y_shape_, y};
    direct_->Run(KernelContext{inputs, std::span<const TensorView>(&output, 1), y + y_count_, ctx.stream});
    int32_t* y_out = ctx.outputs[0].as<int32_t>();
#pragma omp parallel for simd if (y_count_ > kParallelGrain)
    for (int64_t i = 0; i < y_count_; ++i) y_out[i] = SaturateRound<int32_t>(y[i]);
  }

 private:
  ConvInputs inputs_;
  int32_t offset_x_;
  bool has_bias_;
  Shape x_shape_, filter_shape_, bias_shape_, y_shape_;
  int64_t x_count_ = 0, filter_count_ = 0, bias_count_ = 0, y_count_ = 0;
  std::unique_ptr<Kernel> direct_;
};

std::unique_ptr<Kernel> MakeQuantizedForwardConv(const Node& node) {
  return MakeQuantizedConv(node, ConvInputs{0, 1, 2, 3}, /*transposed=*/false);
}

}  // namespace

bool IsQuantizedActivation(DataType dtype) { return dtype == DataType::kInt8 || dtype == DataType::kInt16; }

std::unique_ptr<Kernel> MakeQuantizedConv(const Node& node, ConvInputs inputs, bool transposed) {
  RequireInputDtype(node, inputs.x, {DataType::kInt8, DataType::kInt16});
  const int32_t offset_x = CheckQuantizedOperands(node, inputs);
  if (node.output(0)->dtype() != DataType::kInt32) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("output y is {}; with {} x it must be int32", DataTypeName(node.output(0)->dtype()),
                     DataTypeName(InputDtype(node, inputs.x))));
  }
  const ConvGeometry g = ReadConvGeometry(node, inputs, transposed, /*allow_channels_last=*/!transposed);
  const bool int8 = InputDtype(node, inputs.x) == DataType::kInt8;
  const bool dnnl_int8 = int8 && !transposed && node.input(inputs.filter)->constant() != nullptr;
  // The direct kernel is NCHW only: NHWC (a TensorFlow model's layout) runs as oneDNN's int8 convolution.
  if (g.channels_last && !dnnl_int8) {
    Fail(node, ErrorCode::kUnsupported,
         "data_format NHWC runs only as an int8 convolution with a constant filter; INT16 needs NCHW");
  }
  if (dnnl_int8) {
    try {
      return std::make_unique<DnnlInt8ConvKernel>(node, g, offset_x, FusedQuantOutput{});
    } catch (const dnnl::error&) {
      if (g.channels_last) {
        Fail(node, ErrorCode::kUnsupported, "oneDNN has no int8 NHWC convolution for this geometry; use NCHW");
      }
      // oneDNN has no int8 kernel for this geometry: the exact direct kernel below.
    }
  }
  if (int8) return std::make_unique<WidenedConvKernel<int8_t>>(node, g, offset_x);
  return std::make_unique<WidenedConvKernel<int16_t>>(node, g, offset_x);
}

// QuantConv2D runs only as a oneDNN int8 convolution (it exists to keep the
// sums inside one primitive); a geometry oneDNN refuses is an error.
std::unique_ptr<Kernel> MakeQuantConv2D(const Node& node) {
  const ConvInputs inputs{0, 1, 3, /*offset_w: none*/ 4};
  const int32_t offset_x = CheckQuantizedOperands(node, inputs);
  if (node.input(inputs.filter)->constant() == nullptr) {
    Fail(node, ErrorCode::kUnsupported, "input 'filter' must be a constant");
  }
  const ConvGeometry g = ReadConvGeometry(node, inputs, /*transposed=*/false, /*allow_channels_last=*/true);
  const FusedQuantOutput output = ReadFusedQuantOutput(node);
  return BuildDnnl(node, [&] { return std::make_unique<DnnlInt8ConvKernel>(node, g, offset_x, output); });
}

void RegisterQuantizedConvKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "QuantConv2D", {DataType::kInt8}, MakeQuantConv2D);
  RegisterKernel(registry, "Conv2D", {DataType::kInt8, DataType::kInt16}, MakeQuantizedForwardConv);
  RegisterKernel(registry, "Conv3D", {DataType::kInt8, DataType::kInt16}, MakeQuantizedForwardConv);
}

}  // namespace ge::device::cpu
