// Conv2D / Conv2DTranspose on NCHW and Conv3D / Conv3DTranspose on NCDHW,
// float32, through oneDNN. The primitive is
// built once per kernel; a constant filter is reordered once into the layout
// the primitive prefers (format_tag::any), a runtime filter is read as is.
#include <optional>

#include <fmt/format.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/window_attrs.h"

namespace ge::device::cpu {

namespace {

using Tag = dnnl::memory::format_tag;

// Where the operands sit among the node's inputs (Conv2DTranspose has
// input_size first).
struct ConvInputs {
  size_t x, filter, bias, offset_w;
};
constexpr ConvInputs kConvInputs{0, 1, 2, 3};
constexpr ConvInputs kConvTransposeInputs{1, 2, 3, 4};

// Everything the two ops share: the geometry read from attributes and
// shapes, and the oneDNN descriptors of the operands in their user layouts.
struct ConvSetup {
  ConvInputs inputs;
  int64_t groups = 1;
  dnnl::memory::dims strides, dilates, padding_l, padding_r;
  dnnl::memory::desc src, user_weights, weights_any, bias, dst;
  bool has_bias = false;
  const Tensor* constant_filter = nullptr;
};

// Filter dims in oneDNN's logical order ([G,] O, I, k...) and the user
// layout: a convolution's filter is [Cout, Cin/g, k...] (o,i order), the
// transposed one's [Cin, Cout/g, k...] (i,o order).
void DescribeFilter(ConvSetup& s, int64_t out_channels, int64_t in_channels, const std::vector<int64_t>& kernel,
                    bool transposed) {
  const bool volumetric = kernel.size() == 3;
  dnnl::memory::dims dims;
  Tag tag;
  if (s.groups == 1) {
    dims = {out_channels, in_channels};
    tag = volumetric ? (transposed ? Tag::iodhw : Tag::oidhw) : (transposed ? Tag::iohw : Tag::oihw);
  } else {
    dims = {s.groups, out_channels / s.groups, in_channels / s.groups};
    tag = volumetric ? (transposed ? Tag::giodhw : Tag::goidhw) : (transposed ? Tag::giohw : Tag::goihw);
  }
  dims.insert(dims.end(), kernel.begin(), kernel.end());
  s.user_weights = F32Desc(dims, tag);
  s.weights_any = F32Desc(dims, Tag::any);
}

ConvSetup ReadSetup(const Node& node, ConvInputs inputs, bool transposed) {
  ConvSetup s;
  s.inputs = inputs;
  RequireInputDtype(node, inputs.x, {DataType::kFloat});
  RequireInputDtype(node, inputs.filter, {DataType::kFloat});
  if (HasInput(node, inputs.offset_w) || node.attrs().GetInt("offset_x") != 0) {
    Fail(node, ErrorCode::kUnsupported,
         "offset_w / offset_x (quantized convolution) are not supported by the float32 kernel");
  }
  const size_t spatial = SpatialRankOf(node, inputs.x);
  const Shape& x = InputShape(node, inputs.x);
  const Shape& w = InputShape(node, inputs.filter);
  const Shape& y = OutputShape(node, 0);
  if (w.rank() != x.rank() || y.rank() != x.rank()) {
    Fail(node, ErrorCode::kInvalidArgument, fmt::format("x, filter and y must have the same rank, got {}, {}, {}",
                                                        x.ToString(), w.ToString(), y.ToString()));
  }
  s.groups = node.attrs().GetInt("groups");
  const int64_t in_channels = x.dim(1);
  const int64_t out_channels = y.dim(1);
  const int64_t filter_in = transposed ? w.dim(0) : w.dim(1) * s.groups;
  const int64_t filter_out = transposed ? w.dim(1) * s.groups : w.dim(0);
  if (s.groups < 1 || in_channels % s.groups != 0 || out_channels % s.groups != 0 || filter_in != in_channels ||
      filter_out != out_channels) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("groups = {}, x {}, filter {} and y {} do not agree on the channel counts", s.groups,
                     x.ToString(), w.ToString(), y.ToString()));
  }
  const std::vector<int64_t> stride = SpatialAttrN(node, "strides", spatial);
  const std::vector<int64_t> dilation = SpatialAttrN(node, "dilations", spatial);
  const std::vector<int64_t> pads = PadsAttrN(node, spatial);
  const std::vector<int64_t> kernel(w.dims().begin() + 2, w.dims().end());
  for (size_t a = 0; a < spatial; ++a) {
    s.strides.push_back(stride[a]);
    s.dilates.push_back(dilation[a] - 1);  // oneDNN counts the holes, 0 = dense
    s.padding_l.push_back(pads[2 * a]);
    if (transposed) {
      // output_padding extends the end edge: it shows up as less end
      // padding. Derived from the planned output so input_size is honoured.
      const int64_t span = (x.dim(a + 2) - 1) * stride[a] + (kernel[a] - 1) * dilation[a] + 1;
      s.padding_r.push_back(span - pads[2 * a] - y.dim(a + 2));
    } else {
      s.padding_r.push_back(pads[2 * a + 1]);
    }
  }
  DescribeFilter(s, out_channels, in_channels, kernel, transposed);
  const Tag data_tag = spatial == 3 ? Tag::ncdhw : Tag::nchw;
  s.src = F32Desc(ToDnnlDims(x.dims()), data_tag);
  s.dst = F32Desc(ToDnnlDims(y.dims()), data_tag);
  s.has_bias = HasInput(node, inputs.bias);
  if (s.has_bias) {
    RequireInputDtype(node, inputs.bias, {DataType::kFloat});
    if (InputShape(node, inputs.bias).NumElements() != out_channels) {
      Fail(node, ErrorCode::kInvalidArgument, fmt::format("bias {} must have {} (output channels) elements",
                                                          InputShape(node, inputs.bias).ToString(), out_channels));
    }
    s.bias = F32Desc({out_channels}, Tag::a);
  }
  s.constant_filter = node.input(inputs.filter)->constant();
  return s;
}

class ConvKernel final : public Kernel {
 public:
  template <typename PrimitiveDesc, typename Primitive>
  ConvKernel(const Node& node, const ConvSetup& setup, const PrimitiveDesc& pd, Primitive primitive)
      : label_(node.Describe()),
        inputs_(setup.inputs),
        primitive_(std::move(primitive)),
        src_(pd.src_desc()),
        weights_(pd.weights_desc()),
        dst_(pd.dst_desc()),
        scratchpad_(pd.scratchpad_desc()) {
    if (setup.constant_filter != nullptr) {
      packed_weights_ = PackConstant(*setup.constant_filter, setup.user_weights, weights_);
    }
    if (setup.has_bias) bias_ = setup.bias;
  }

  void Run(const KernelContext& ctx) const override {
    std::unordered_map<int, dnnl::memory> args;
    args.emplace(DNNL_ARG_SRC, WrapBuffer(src_, ctx.inputs[inputs_.x].data));
    args.emplace(DNNL_ARG_WEIGHTS,
                 packed_weights_ ? *packed_weights_ : WrapBuffer(weights_, ctx.inputs[inputs_.filter].data));
    if (bias_) {
      args.emplace(DNNL_ARG_BIAS, WrapBuffer(*bias_, ctx.inputs[inputs_.bias].data));
    }
    args.emplace(DNNL_ARG_DST, WrapBuffer(dst_, ctx.outputs[0].data));
    ExecuteDnnl(label_, primitive_, std::move(args), scratchpad_, ctx.workspace);
  }

  size_t WorkspaceBytes() const override { return scratchpad_.get_size(); }

 private:
  std::string label_;
  ConvInputs inputs_;
  dnnl::primitive primitive_;
  dnnl::memory::desc src_, weights_, dst_, scratchpad_;
  std::optional<dnnl::memory::desc> bias_;
  std::optional<dnnl::memory> packed_weights_;
};

// A constant filter lets oneDNN pick its layout; a runtime one must be read in place.
const dnnl::memory::desc& WeightsDescToBuild(const ConvSetup& s) {
  return s.constant_filter != nullptr ? s.weights_any : s.user_weights;
}

std::unique_ptr<Kernel> MakeConv(const Node& node) {
  const ConvSetup s = ReadSetup(node, kConvInputs, /*transposed=*/false);
  return BuildDnnl(node, [&]() -> std::unique_ptr<Kernel> {
    using Conv = dnnl::convolution_forward;
    const dnnl::memory::desc no_bias;
    Conv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s.src,
                    WeightsDescToBuild(s), s.has_bias ? s.bias : no_bias, s.dst, s.strides, s.dilates, s.padding_l,
                    s.padding_r);
    Conv::primitive_desc pd(desc, DnnlAttributes(), CpuEngine());
    return std::make_unique<ConvKernel>(node, s, pd, Conv(pd));
  });
}

std::unique_ptr<Kernel> MakeConvTranspose(const Node& node) {
  const ConvSetup s = ReadSetup(node, kConvTransposeInputs, /*transposed=*/true);
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
  RegisterKernel(registry, "Conv2D", {DataType::kFloat}, MakeConv);
  RegisterKernel(registry, "Conv3D", {DataType::kFloat}, MakeConv);
  // Keyed by its first input, input_size (the output shape as int32/int64);
  // x and filter are checked to be float32 when the kernel is built.
  RegisterKernel(registry, "Conv2DTranspose", {DataType::kInt32, DataType::kInt64}, MakeConvTranspose);
  RegisterKernel(registry, "Conv3DTranspose", {DataType::kInt32, DataType::kInt64}, MakeConvTranspose);
}

}  // namespace ge::device::cpu
