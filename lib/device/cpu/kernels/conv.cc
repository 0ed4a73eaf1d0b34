// Conv2D / Conv2DTranspose on NCHW and Conv3D / Conv3DTranspose on NCDHW;
// the float32 oneDNN Conv2D also on NHWC, read and written in place.
// float32 runs through oneDNN: the primitive is built once per kernel; a
// constant filter is reordered once into the layout the primitive prefers
// (format_tag::any), a runtime filter is read as is. The dtypes oneDNN lacks
// (float64, float16, bfloat16) run the direct kernel of direct_conv.cc.
// Conv2D/Conv3D in high_performance or enable_hi_float_32_execution mode
// multiply bfloat16-rounded operands instead (bf16_products.h). The float32
// oneDNN Conv2D/Conv3D also applies the residual Add and activation the
// conv_post_op_fusion pass folded into it, as post-ops (graph/conv_post_ops.h).
// Convolutions too small for oneDNN's per-call work run in small_conv.cc.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string_view>

#include <fmt/core.h>

#include "device/cpu/kernels/bf16_products.h"
#include "device/cpu/kernels/conv_geometry.h"
#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "graph/conv_post_ops.h"

namespace ge::device::cpu {

namespace {

using Tag = dnnl::memory::format_tag;

constexpr ConvInputs kConvInputs{0, 1, 2, 3};
constexpr ConvInputs kConvTransposeInputs{1, 2, 3, 4};

const std::vector<DataType>& ConvDtypes() {
  static const std::vector<DataType> dtypes = {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                               DataType::kBFloat16};
  return dtypes;
}

// The float kernels' dtype rule: x, filter and bias share one of ConvDtypes().
ConvGeometry ReadGeometry(const Node& node, ConvInputs inputs, bool transposed) {
  RequireInputDtype(node, inputs.x, ConvDtypes());
  const DataType dtype = InputDtype(node, inputs.x);
  RequireInputDtype(node, inputs.filter, {dtype});
  if (HasInput(node, inputs.bias)) RequireInputDtype(node, inputs.bias, {dtype});
  if (HasInput(node, inputs.offset_w) || node.attrs().GetInt("offset_x") != 0) {
    Fail(node, ErrorCode::kUnsupported,
         "offset_w / offset_x (quantized convolution) are not supported by the float kernels");
  }
  ConvGeometry g = ReadConvGeometry(node, inputs, transposed, /*allow_channels_last=*/true);
  g.dtype = dtype;
  return g;
}

// The oneDNN descriptors of the operands in their user layouts.
struct ConvSetup {
  ConvInputs inputs;
  dnnl::memory::dims strides, dilates, padding_l, padding_r;
  dnnl::memory::desc src, user_weights, weights_any, bias, dst;
  bool has_bias = false;
  const Tensor* constant_filter = nullptr;
};

// Filter dims in oneDNN's logical order ([G,] O, I, k...) and the user
// layout: a convolution's filter is [Cout, Cin/g, k...] (o,i order), the
// transposed one's [Cin, Cout/g, k...] (i,o order).
void DescribeFilter(ConvSetup& s, const ConvGeometry& g) {
  const bool volumetric = g.kernel.size() == 3;
  const int64_t out_channels = g.out_channels, in_channels = g.in_channels;
  dnnl::memory::dims dims;
  Tag tag;
  if (g.groups == 1) {
    dims = {out_channels, in_channels};
    tag = volumetric ? (g.transposed ? Tag::iodhw : Tag::oidhw) : (g.transposed ? Tag::iohw : Tag::oihw);
  } else {
    dims = {g.groups, out_channels / g.groups, in_channels / g.groups};
    tag = volumetric ? (g.transposed ? Tag::giodhw : Tag::goidhw) : (g.transposed ? Tag::giohw : Tag::goihw);
  }
  dims.insert(dims.end(), g.kernel.begin(), g.kernel.end());
  s.user_weights = F32Desc(dims, tag);
  s.weights_any = F32Desc(dims, Tag::any);
}

ConvSetup ReadSetup(const Node& node, const ConvGeometry& g) {
  ConvSetup s;
  s.inputs = g.inputs;
  for (size_t a = 0; a < g.kernel.size(); ++a) {
    s.strides.push_back(g.stride[a]);
    s.dilates.push_back(g.dilation[a] - 1);  // oneDNN counts the holes, 0 = dense
    s.padding_l.push_back(g.pad_begin[a]);
    s.padding_r.push_back(g.pad_end[a]);
  }
  DescribeFilter(s, g);
  const Tag data_tag = g.channels_last ? Tag::nhwc : g.kernel.size() == 3 ? Tag::ncdhw : Tag::nchw;
  s.src = F32Desc(ToDnnlDims(ChannelsFirstDims(g, g.x)), data_tag);
  s.dst = F32Desc(ToDnnlDims(ChannelsFirstDims(g, g.y)), data_tag);
  s.has_bias = g.has_bias;
  if (s.has_bias) s.bias = F32Desc({g.out_channels}, Tag::a);
  s.constant_filter = node.input(g.inputs.filter)->constant();
  return s;
}

struct EltwiseOp {
  dnnl::algorithm algorithm;
  float alpha, beta;
};

EltwiseOp ActivationOp(const FusedPostOps& fused) {
  if (fused.activation == kFusedClip) return {dnnl::algorithm::eltwise_clip, fused.clip_min, fused.clip_max};
  return {dnnl::algorithm::eltwise_relu, 0.f, 0.f};
}

// DnnlAttributes() plus the fused ops, in the order the graph applied them:
// the addend first (a sum post-op: y, preloaded with the addend, accumulates
// the convolution), the activation after (unless with_activation is false).
dnnl::primitive_attr PostOpAttributes(const FusedPostOps& fused, bool with_activation) {
  dnnl::primitive_attr attr = DnnlAttributes();
  dnnl::post_ops ops;
  if (fused.add) ops.append_sum(1.f);
  if (with_activation && !fused.activation.empty()) {
    const EltwiseOp op = ActivationOp(fused);
    ops.append_eltwise(1.f, op.algorithm, op.alpha, op.beta);
  }
  attr.set_post_ops(ops);
  return attr;
}

// oneDNN 2.6's GEMM-based convolution (the one plain layouts get) applies an
// activation post-op element by element after the GEMM, several times slower
// than the convolution itself (mobilenet_v2's 16->96 1x1 layer: 4.5 ms instead
// of 0.36 ms), while its sum post-op is the GEMM's beta and free. There the
// activation runs afterwards, as a vectorized eltwise primitive over y.
bool AppliesActivationSlowly(const dnnl::convolution_forward::primitive_desc& pd) {
  return std::string_view(pd.impl_info_str()).find("gemm") != std::string_view::npos;
}

dnnl::eltwise_forward ActivationPrimitive(const FusedPostOps& fused, const dnnl::memory::desc& y) {
  const EltwiseOp op = ActivationOp(fused);
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_inference, op.algorithm, y, op.alpha, op.beta);
  return dnnl::eltwise_forward(dnnl::eltwise_forward::primitive_desc(desc, DnnlAttributes(), CpuEngine()));
}

// What a ConvKernel does around its primitive for the fused ops.
struct ConvEpilogue {
  std::optional<size_t> addend_input;               // preloaded into y for the sum post-op
  std::optional<dnnl::eltwise_forward> activation;  // run on y after the primitive
};

// A convolution whose activations oneDNN may keep in a blocked layout
// (nChw16c and the like, where its direct AVX-512/AVX2 kernels run; on plain
// NCHW it falls back to im2col + GEMM): x is reordered into the workspace
// before and y out of it after, when the primitive chose a layout other than
// the runtime's plain one. With a fused Add, y starts out holding the
// addend, which the sum post-op accumulates onto.
class ConvKernel final : public Kernel {
 public:
  template <typename PrimitiveDesc, typename Primitive>
  ConvKernel(const Node& node, const ConvSetup& setup, const PrimitiveDesc& pd, Primitive primitive,
             ConvEpilogue epilogue = {})
      : label_(node.Describe()),
        inputs_(setup.inputs),
        epilogue_(std::move(epilogue)),
        primitive_(std::move(primitive)),
        user_src_(setup.src),
        user_dst_(setup.dst),
        src_(pd.src_desc()),
        weights_(pd.weights_desc()),
        dst_(pd.dst_desc()),
        scratchpad_(pd.scratchpad_desc()) {
    if (setup.constant_filter != nullptr) {
      packed_weights_ = PackConstant(*setup.constant_filter, setup.user_weights, weights_);
    }
    if (setup.has_bias) bias_ = setup.bias;
    const dnnl::engine& engine = CpuEngine();
    if (src_ != user_src_) src_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, user_src_, engine, src_));
    if (dst_ != user_dst_) dst_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, dst_, engine, user_dst_));
    if (epilogue_.addend_input && dst_reorder_) {
      addend_reorder_ = dnnl::reorder(dnnl::reorder::primitive_desc(engine, user_dst_, engine, dst_));
    }
  }

  void Run(const KernelContext& ctx) const override {
    auto* workspace = static_cast<std::byte*>(ctx.workspace);
    dnnl::memory user_src = WrapBuffer(user_src_, ctx.inputs[inputs_.x].data);
    dnnl::memory user_dst = WrapBuffer(user_dst_, ctx.outputs[0].data);
    dnnl::memory src = src_reorder_ ? WrapBuffer(src_, workspace + SrcOffset()) : user_src;
    dnnl::memory dst = dst_reorder_ ? WrapBuffer(dst_, workspace + DstOffset()) : user_dst;
    std::unordered_map<int, dnnl::memory> args;
    args.emplace(DNNL_ARG_SRC, src);
    args.emplace(DNNL_ARG_WEIGHTS,
                 packed_weights_ ? *packed_weights_ : WrapBuffer(weights_, ctx.inputs[inputs_.filter].data));
    if (bias_) args.emplace(DNNL_ARG_BIAS, WrapBuffer(*bias_, ctx.inputs[inputs_.bias].data));
    args.emplace(DNNL_ARG_DST, dst);
    if (scratchpad_.get_size() > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad_, CpuEngine(), workspace));
    try {
      dnnl::stream stream(CpuEngine());
      if (src_reorder_) src_reorder_->execute(stream, user_src, src);
      if (epilogue_.addend_input) PreloadAddend(stream, ctx, dst);
      primitive_.execute(stream, args);
      if (epilogue_.activation) epilogue_.activation->execute(stream, {{DNNL_ARG_SRC, dst}, {DNNL_ARG_DST, dst}});
      if (dst_reorder_) dst_reorder_->execute(stream, dst, user_dst);
      stream.wait();
    } catch (const dnnl::error& e) {
      throw Error(ErrorCode::kInternal, fmt::format("{}: oneDNN execution failed: {}", label_, e.what()));
    }
  }

  // [scratchpad | blocked x | blocked y], each 64-byte aligned.
  size_t WorkspaceBytes() const override {
    return DstOffset() + (dst_reorder_ ? Aligned(dst_.get_size()) : 0);
  }

  std::vector<PackedInput> PackedInputs() const override {
    if (!packed_weights_) return {};
    return {DescribePacked(inputs_.filter, *packed_weights_)};
  }

 private:
  static size_t Aligned(size_t bytes) { return (bytes + 63) / 64 * 64; }

  // Puts the addend where the primitive writes y. A y the planner already
  // placed on the addend's bytes needs nothing.
  void PreloadAddend(dnnl::stream& stream, const KernelContext& ctx, dnnl::memory& dst) const {
    const void* addend = ctx.inputs[*epilogue_.addend_input].data;
    if (addend_reorder_) {
      dnnl::memory user_addend = WrapBuffer(user_dst_, addend);
      addend_reorder_->execute(stream, user_addend, dst);
    } else if (addend != ctx.outputs[0].data) {
      std::memcpy(ctx.outputs[0].data, addend, user_dst_.get_size());
    }
  }
  size_t SrcOffset() const { return Aligned(scratchpad_.get_size()); }
  size_t DstOffset() const { return SrcOffset() + (src_reorder_ ? Aligned(src_.get_size()) : 0); }

  std::string label_;
  ConvInputs inputs_;
  ConvEpilogue epilogue_;
  dnnl::primitive primitive_;
  dnnl::memory::desc user_src_, user_dst_;  // the runtime's plain layouts
  dnnl::memory::desc src_, weights_, dst_, scratchpad_;
  std::optional<dnnl::memory::desc> bias_;
  std::optional<PackedConstant> packed_weights_;
  std::optional<dnnl::reorder> src_reorder_, dst_reorder_, addend_reorder_;
};

// A constant filter lets oneDNN pick its layout; a runtime one must be read in place.
const dnnl::memory::desc& WeightsDescToBuild(const ConvSetup& s) {
  return s.constant_filter != nullptr ? s.weights_any : s.user_weights;
}

// high_performance / enable_hi_float_32_execution: bfloat16 operands, float32
// accumulation (bf16_products.h), for the float32, float16 and bfloat16 nodes.
std::unique_ptr<Kernel> MakeBf16Conv(const Node& node, const ConvGeometry& g) {
  const ConvSetup s = ReadSetup(node, g);
  return BuildBf16Product(node, [&](dnnl::memory::data_type operand_type) -> std::unique_ptr<Kernel> {
    using Conv = dnnl::convolution_forward;
    using Type = dnnl::memory::data_type;
    const dnnl::memory::desc no_bias;
    Conv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                    AnyLayout(s.src, operand_type), AnyLayout(s.user_weights, operand_type),
                    s.has_bias ? s.bias : no_bias, AnyLayout(s.dst, Type::f32), s.strides, s.dilates, s.padding_l,
                    s.padding_r);
    Conv::primitive_desc pd(desc, DnnlAttributes(), CpuEngine());
    std::optional<ProductOperand> bias;
    if (s.has_bias) bias = ProductOperand{s.inputs.bias, s.bias};
    return std::make_unique<Bf16ProductKernel>(node, pd, Conv(pd), ProductOperand{s.inputs.x, s.src},
                                               ProductOperand{s.inputs.filter, s.user_weights}, bias, s.dst);
  });
}

// Blocked activations pay two reorders per call. They win for wide layers
// (both channel counts at least kWideChannels, depthwise included) and when
// the convolution does enough work per activation element moved (products
// per output pixel over the channels reordered per pixel); thin layers such
// as SqueezeNet's 16-channel squeezes stay plain. Chosen on resnet18,
// mobilenet_v2 and squeezenet1_1 (docs/performance.md). A runtime filter
// keeps everything plain.
constexpr double kBlockingWorkPerElement = 64;
constexpr double kWideChannels = 32;

bool WorthBlocking(const ConvGeometry& g, const ConvSetup& s) {
  if (s.constant_filter == nullptr) return false;
  double window = 1;
  for (int64_t k : g.kernel) window *= static_cast<double>(k);
  const double in_channels = static_cast<double>(g.x.dim(1)), out_channels = static_cast<double>(g.y.dim(1));
  const double products = in_channels / static_cast<double>(g.groups) * out_channels * window;
  return std::min(in_channels, out_channels) >= kWideChannels ||
         products / (in_channels + out_channels) >= kBlockingWorkPerElement;
}

std::unique_ptr<Kernel> MakeConv(const Node& node) {
  const ConvGeometry g = ReadGeometry(node, kConvInputs, /*transposed=*/false);
  const FusedPostOps fused = ReadFusedPostOps(node);
  const bool reduced_precision = g.dtype != DataType::kDouble && WantsReducedPrecisionProducts(node);
  if (fused.any() && (reduced_precision || g.dtype != DataType::kFloat)) {
    Fail(node, ErrorCode::kUnsupported,
         "fused post-ops (_fused_*) run only in the float32 convolution in an exact-float32 mode");
  }
  if (g.channels_last && (reduced_precision || g.dtype != DataType::kFloat)) {
    Fail(node, ErrorCode::kUnsupported,
         "data_format NHWC runs only in the float32 convolution in an exact-float32 mode; use NCHW");
  }
  if (reduced_precision) return MakeBf16Conv(node, g);
  if (g.dtype != DataType::kFloat) return MakeDirectConv(node, g);
  if (std::unique_ptr<Kernel> small = MakeSmallConv(node, g, fused)) return small;
  const ConvSetup s = ReadSetup(node, g);
  return BuildDnnl(node, [&]() -> std::unique_ptr<Kernel> {
    using Conv = dnnl::convolution_forward;
    const dnnl::memory::desc no_bias;
    // NHWC is where oneDNN's fast kernels (brgconv, brdgmm depthwise) run
    // directly; only NCHW benefits from reordering to a blocked layout.
    const bool blocked = !g.channels_last && WorthBlocking(g, s);
    Conv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                    blocked ? AnyLayout(s.src, dnnl::memory::data_type::f32) : s.src, WeightsDescToBuild(s),
                    s.has_bias ? s.bias : no_bias, blocked ? AnyLayout(s.dst, dnnl::memory::data_type::f32) : s.dst,
                    s.strides, s.dilates, s.padding_l, s.padding_r);
    Conv::primitive_desc pd(desc, PostOpAttributes(fused, /*with_activation=*/true), CpuEngine());
    ConvEpilogue epilogue;
    if (fused.add) epilogue.addend_input = kConvFusedAddend;
    if (!fused.activation.empty() && AppliesActivationSlowly(pd)) {
      pd = Conv::primitive_desc(desc, PostOpAttributes(fused, /*with_activation=*/false), CpuEngine());
      epilogue.activation = ActivationPrimitive(fused, pd.dst_desc());
    }
    return std::make_unique<ConvKernel>(node, s, pd, Conv(pd), std::move(epilogue));
  });
}

std::unique_ptr<Kernel> MakeConvTranspose(const Node& node) {
  if (IsQuantizedActivation(InputDtype(node, kConvTransposeInputs.x))) {
    return MakeQuantizedConv(node, kConvTransposeInputs, /*transposed=*/true);
  }
  const ConvGeometry g = ReadGeometry(node, kConvTransposeInputs, /*transposed=*/true);
  if (g.dtype != DataType::kFloat) return MakeDirectConv(node, g);
  const ConvSetup s = ReadSetup(node, g);
  return BuildDnnl(node, [&]() -> std::unique_ptr<Kernel> {
    using Deconv = dnnl::deconvolution_forward;
    const dnnl::memory::desc no_bias;
    Deconv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, s.src,
                      WeightsDescToBuild(s), s.has_bias ? s.bias : no_bias, s.dst, s.strides, s.dilates, s.padding_l,
                      s.padding_r);
    Deconv::primitive_desc pd(desc, DnnlAttributes(), CpuEngine());
    return std::make_unique<ConvKernel>(node, s, pd, Deconv(pd));
  });
}

}  // namespace

void RegisterConvKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "Conv2D", ConvDtypes(), MakeConv, CubeImplModes());
  RegisterKernel(registry, "Conv3D", ConvDtypes(), MakeConv, CubeImplModes());
  // Keyed by its first input, input_size (the output shape as int32/int64);
  // the dtype of x and filter is checked when the kernel is built.
  RegisterKernel(registry, "Conv2DTranspose", {DataType::kInt32, DataType::kInt64}, MakeConvTranspose);
  RegisterKernel(registry, "Conv3DTranspose", {DataType::kInt32, DataType::kInt64}, MakeConvTranspose);
}

}  // namespace ge::device::cpu
