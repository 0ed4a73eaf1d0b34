// Convolutions, pooling and resizing: Conv2D, DepthwiseConv2dNative and their
// grappler-fused forms (_FusedConv2D, FusedDepthwiseConv2dNative: BiasAdd or
// FusedBatchNorm, then an activation), Conv2DBackpropInput, Conv3D, MaxPool,
// AvgPool. They stay in the
// model's layout (NHWC as TensorFlow writes them): ge's Conv2D and pools take
// data_format NHWC with strides and windows in that order, so no transpose
// surrounds them. Filters, constant, are re-laid out once: TensorFlow's
// [kh, kw, Cin, Cout] (depthwise [kh, kw, C, multiplier]) becomes ge's
// [Cout, Cin/groups, kh, kw]. ResizeBilinear keeps the layout too.
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/tf/tf_translation.h"

namespace ge::tf_import {
namespace {

struct Layout {
  bool channels_last = true;
  size_t h = 1, w = 2, c = 3;  // axes of x
};

Layout LayoutOf(TfNodeContext& ctx) {
  const std::string format = ctx.String("data_format", "NHWC");
  if (format == "NHWC") return Layout{};
  if (format == "NCHW") return Layout{false, 2, 3, 1};
  ctx.Fail(fmt::format("data_format '{}' is not supported (valid: NHWC, NCHW)", format), /*unsupported=*/true);
}

// A window attribute (strides, dilations, ksize) in data_format order, of 4 values.
std::vector<int64_t> Window(TfNodeContext& ctx, const std::string& attr) {
  std::vector<int64_t> values = ctx.Ints(attr);
  if (values.empty()) values = {1, 1, 1, 1};
  if (values.size() != 4) ctx.Fail(fmt::format("attribute '{}' has {} values; 4 expected", attr, values.size()));
  for (int64_t v : values) {
    if (v < 1) ctx.Fail(fmt::format("attribute '{}' has a value below 1", attr));
  }
  return values;
}

// ge's pads [top, bottom, left, right] for TensorFlow's padding.
std::vector<int64_t> Pads(TfNodeContext& ctx, const Shape& x, const Layout& layout, const std::vector<int64_t>& kernel,
                          const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations) {
  const std::string padding = ctx.String("padding", "VALID");
  if (padding == "VALID") return {0, 0, 0, 0};
  if (padding == "EXPLICIT") {
    const std::vector<int64_t> explicit_pads = ctx.Ints("explicit_paddings");
    if (explicit_pads.size() != 8) ctx.Fail("explicit_paddings must have 8 values");
    return {explicit_pads[2 * layout.h], explicit_pads[2 * layout.h + 1], explicit_pads[2 * layout.w],
            explicit_pads[2 * layout.w + 1]};
  }
  if (padding != "SAME") ctx.Fail(fmt::format("padding '{}' is not supported (valid: SAME, VALID, EXPLICIT)", padding));
  std::vector<int64_t> pads;
  for (size_t i = 0; i < 2; ++i) {
    const size_t axis = i == 0 ? layout.h : layout.w;
    if (x.unknown_rank() || x.rank() != 4 || x.dim(axis) < 0) {
      ctx.Fail(fmt::format("padding SAME needs the input's spatial dims, but x is {}; give the input's shape "
                           "(--input_shape)", x.ToString()), /*unsupported=*/true);
    }
    const int64_t in = x.dim(axis);
    const int64_t stride = strides[axis];
    const int64_t out = (in + stride - 1) / stride;
    const int64_t span = (kernel[i] - 1) * dilations[axis] + 1;
    const int64_t total = std::max<int64_t>((out - 1) * stride + span - in, 0);
    pads.push_back(total / 2);
    pads.push_back(total - total / 2);
  }
  return pads;
}

// Folds a FusedBatchNorm's scale, offset, mean and variance into the
// filter (ge layout, output channel first) and bias.
void FoldBatchNorm(TfNodeContext& ctx, Tensor& filter, Tensor& bias, size_t first_arg) {
  const int64_t channels = filter.shape().dim(0);
  std::vector<const Tensor*> args;
  for (size_t i = 0; i < 4; ++i) {
    const Tensor* arg = ctx.constant(first_arg + i);
    if (arg == nullptr || arg->dtype() != DataType::kFloat || arg->shape().NumElements() != channels) {
      ctx.Fail("FusedBatchNorm's scale, offset, mean and variance must be float constants of one value per channel",
               /*unsupported=*/true);
    }
    args.push_back(arg);
  }
  const float epsilon = ctx.Float("epsilon", 1e-3f);
  const int64_t per_channel = filter.shape().NumElements() / channels;
  auto* w = static_cast<float*>(filter.data());
  auto* b = static_cast<float*>(bias.data());
  for (int64_t c = 0; c < channels; ++c) {
    const float scale = static_cast<const float*>(args[0]->data())[c];
    const float offset = static_cast<const float*>(args[1]->data())[c];
    const float mean = static_cast<const float*>(args[2]->data())[c];
    const float variance = static_cast<const float*>(args[3]->data())[c];
    const float factor = scale / std::sqrt(variance + epsilon);
    for (int64_t k = 0; k < per_channel; ++k) w[c * per_channel + k] *= factor;
    b[c] = (b[c] - mean) * factor + offset;
  }
}

// ge's [Cout, Cin/groups, kh, kw] from TensorFlow's [kh, kw, Cin, Cout], or for
// a depthwise filter [kh, kw, C, M] the [C * M, 1, kh, kw] of C groups.
Tensor GeFilter(TfNodeContext& ctx, const Tensor& tf_filter, bool depthwise) {
  if (tf_filter.dtype() != DataType::kFloat || tf_filter.shape().rank() != 4) {
    ctx.Fail(fmt::format("filter must be a float32 constant of rank 4, got {} {}", DataTypeName(tf_filter.dtype()),
                         tf_filter.shape().ToString()), /*unsupported=*/true);
  }
  const int64_t kh = tf_filter.shape().dim(0), kw = tf_filter.shape().dim(1);
  const int64_t in = tf_filter.shape().dim(2), out = tf_filter.shape().dim(3);
  const int64_t cout = depthwise ? in * out : out;
  const int64_t cin = depthwise ? 1 : in;
  Tensor filter(DataType::kFloat, Shape({cout, cin, kh, kw}));
  const auto* src = static_cast<const float*>(tf_filter.data());
  auto* dst = static_cast<float*>(filter.data());
  for (int64_t y = 0; y < kh; ++y) {
    for (int64_t x = 0; x < kw; ++x) {
      for (int64_t i = 0; i < in; ++i) {
        for (int64_t o = 0; o < out; ++o) {
          const float v = src[((y * kw + x) * in + i) * out + o];
          if (depthwise) {
            dst[(((i * out + o) * 1 + 0) * kh + y) * kw + x] = v;
          } else {
            dst[((o * in + i) * kh + y) * kw + x] = v;
          }
        }
      }
    }
  }
  return filter;
}

std::vector<Value*> Convolution(TfNodeContext& ctx, bool depthwise, bool fused) {
  Value* x = ctx.input(0);
  const Tensor* tf_filter = ctx.constant(1);
  if (tf_filter == nullptr) ctx.Fail("a filter computed at run time is not supported", /*unsupported=*/true);
  const Layout layout = LayoutOf(ctx);
  const std::vector<int64_t> strides = Window(ctx, "strides");
  const std::vector<int64_t> dilations = Window(ctx, "dilations");
  Tensor filter = GeFilter(ctx, *tf_filter, depthwise);
  const int64_t cout = filter.shape().dim(0);
  const Shape& xs = x->shape();
  const int64_t channels = xs.unknown_rank() || xs.rank() != 4 ? -1 : xs.dim(layout.c);
  int64_t groups = 1;
  if (depthwise) {
    groups = tf_filter->shape().dim(2);
  } else if (channels > 0 && channels != filter.shape().dim(1)) {
    if (channels % filter.shape().dim(1) != 0) {
      ctx.Fail(fmt::format("x has {} channels; the filter takes {}", channels, filter.shape().dim(1)));
    }
    groups = channels / filter.shape().dim(1);
  }
  const std::vector<int64_t> pads =
      Pads(ctx, xs, layout, {filter.shape().dim(2), filter.shape().dim(3)}, strides, dilations);

  // The fused ops: BiasAdd or FusedBatchNorm, then at most one activation.
  std::vector<std::string> fused_ops = fused ? ctx.Strings("fused_ops") : std::vector<std::string>{};
  Tensor bias(DataType::kFloat, Shape({cout}));
  bool has_bias = false;
  size_t next = 0;
  if (!fused_ops.empty() && fused_ops[0] == "BiasAdd") {
    const Tensor* b = ctx.constant(2);
    if (b == nullptr || b->dtype() != DataType::kFloat || b->shape().NumElements() != cout) {
      ctx.Fail("BiasAdd's bias must be a float constant of one value per output channel", /*unsupported=*/true);
    }
    std::memcpy(bias.data(), b->data(), bias.nbytes());
    has_bias = true;
    next = 1;
  } else if (!fused_ops.empty() && fused_ops[0] == "FusedBatchNorm") {
    std::memset(bias.data(), 0, bias.nbytes());
    FoldBatchNorm(ctx, filter, bias, 2);
    has_bias = true;
    next = 1;
  }
  if (fused_ops.size() > next + 1 || (fused && next == 0 && !fused_ops.empty())) {
    ctx.Fail(fmt::format("fused_ops [{}] are not supported (supported: BiasAdd or FusedBatchNorm, then one "
                         "activation)", fmt::join(fused_ops, ", ")), /*unsupported=*/true);
  }
  const bool activation = fused_ops.size() == next + 1;
  std::vector<Value*> inputs = {x, ctx.Constant("filter", std::move(filter))};
  if (has_bias) inputs.push_back(ctx.Constant("bias", std::move(bias)));
  Value* y = ctx.Op("Conv2D", inputs,
                    {{"strides", strides}, {"dilations", dilations}, {"pads", pads}, {"groups", groups},
                     {"data_format", std::string(layout.channels_last ? "NHWC" : "NCHW")}},
                    activation ? ctx.Name("conv") : ctx.node().name());
  if (!activation) return {y};
  // Prelu's alpha is the argument after the bias.
  Value* alpha = fused_ops[next] == "Prelu" && ctx.num_inputs() > 3 ? ctx.input(3) : nullptr;
  return {FusedActivation(ctx, fused_ops[next], y, alpha)};
}

// Conv2DBackpropInput(input_sizes, filter, out_backprop): a convolution's
// gradient with respect to its input, i.e. out_backprop through a transposed
// convolution to input_sizes, padded as the forward convolution was. ge's
// Conv2DTranspose is NCHW only, so NHWC out_backprop is transposed to NCHW
// and the result back (the one op that takes a transpose each side). The
// filter [kh, kw, C of the result, C of out_backprop] is ge's
// [Cin, Cout, kh, kw] after GeFilter's usual relayout.
std::vector<Value*> BackpropInput(TfNodeContext& ctx) {
  const Layout layout = LayoutOf(ctx);
  const std::vector<int64_t> sizes = ctx.ConstantInts(0, "input_sizes");
  const Tensor* tf_filter = ctx.constant(1);
  if (tf_filter == nullptr) ctx.Fail("a filter computed at run time is not supported", /*unsupported=*/true);
  if (sizes.size() != 4) ctx.Fail(fmt::format("input_sizes must hold 4 values, got {}", sizes.size()));
  const std::vector<int64_t> strides = Window(ctx, "strides");
  const std::vector<int64_t> dilations = Window(ctx, "dilations");
  Tensor filter = GeFilter(ctx, *tf_filter, /*depthwise=*/false);
  const int64_t channels = filter.shape().dim(1);
  if (sizes[layout.c] != channels) {
    ctx.Fail(fmt::format("input_sizes has {} channels; the filter makes {}", sizes[layout.c], channels));
  }
  const std::vector<int64_t> pads =
      Pads(ctx, Shape(sizes), layout, {filter.shape().dim(2), filter.shape().dim(3)}, strides, dilations);
  const std::vector<int64_t> nchw_sizes = {sizes[0], sizes[layout.c], sizes[layout.h], sizes[layout.w]};
  Value* x = ctx.input(2);
  if (layout.channels_last) {
    x = ctx.Op("TransposeD", {x}, {{"perm", std::vector<int64_t>{0, 3, 1, 2}}}, ctx.Name("to_nchw"));
  }
  Value* input_size =
      ctx.Constant("input_size", Tensor::FromVector(DataType::kInt64, Shape({4}), nchw_sizes));
  Value* y = ctx.Op("Conv2DTranspose", {input_size, x, ctx.Constant("filter", std::move(filter))},
                    {{"strides", std::vector<int64_t>{1, 1, strides[layout.h], strides[layout.w]}},
                     {"dilations", std::vector<int64_t>{1, 1, dilations[layout.h], dilations[layout.w]}},
                     {"pads", pads}},
                    layout.channels_last ? ctx.Name("nchw") : ctx.node().name());
  if (!layout.channels_last) return {y};
  return {ctx.Op("TransposeD", {y}, {{"perm", std::vector<int64_t>{0, 2, 3, 1}}}, ctx.node().name())};
}

// Conv3D, NDHWC or NCDHW. ge's Conv3D is NCDHW only, so NDHWC x goes to
// NCDHW and the result back, as for Conv2DBackpropInput. The filter
// [kd, kh, kw, Cin, Cout] becomes [Cout, Cin, kd, kh, kw]; SAME pads each
// spatial axis as Conv2D's.
std::vector<Value*> Conv3D(TfNodeContext& ctx) {
  const std::string format = ctx.String("data_format", "NDHWC");
  if (format != "NDHWC" && format != "NCDHW") {
    ctx.Fail(fmt::format("data_format '{}' is not supported (valid: NDHWC, NCDHW)", format), /*unsupported=*/true);
  }
  const bool channels_last = format == "NDHWC";
  const std::vector<size_t> spatial = channels_last ? std::vector<size_t>{1, 2, 3} : std::vector<size_t>{2, 3, 4};
  auto window = [&](const std::string& attr) {
    std::vector<int64_t> values = ctx.Ints(attr);
    if (values.empty()) values.assign(5, 1);
    if (values.size() != 5 || std::any_of(values.begin(), values.end(), [](int64_t v) { return v < 1; })) {
      ctx.Fail(fmt::format("attribute '{}' must hold 5 values of at least 1", attr));
    }
    return std::vector<int64_t>{values[spatial[0]], values[spatial[1]], values[spatial[2]]};
  };
  const std::vector<int64_t> strides = window("strides"), dilations = window("dilations");
  const Tensor* tf_filter = ctx.constant(1);
  if (tf_filter == nullptr || tf_filter->dtype() != DataType::kFloat || tf_filter->shape().rank() != 5) {
    ctx.Fail("the filter must be a float32 constant of rank 5", /*unsupported=*/true);
  }
  const std::vector<int64_t>& f = tf_filter->shape().dims();  // kd, kh, kw, Cin, Cout
  Tensor filter(DataType::kFloat, Shape({f[4], f[3], f[0], f[1], f[2]}));
  const auto* src = static_cast<const float*>(tf_filter->data());
  auto* dst = static_cast<float*>(filter.data());
  const int64_t taps = f[0] * f[1] * f[2];
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t i = 0; i < f[3]; ++i) {
      for (int64_t o = 0; o < f[4]; ++o) dst[(o * f[3] + i) * taps + t] = src[(t * f[3] + i) * f[4] + o];
    }
  }
  Value* x = ctx.input(0);
  const Shape& xs = x->shape();
  if (xs.unknown_rank() || xs.rank() != 5) ctx.Fail(fmt::format("x must have rank 5, got {}", xs.ToString()));
  const int64_t channels = xs.dim(channels_last ? 4 : 1);
  const int64_t groups = channels > 0 && channels % f[3] == 0 ? channels / f[3] : 1;
  const std::string padding = ctx.String("padding", "VALID");
  if (padding != "SAME" && padding != "VALID") {
    ctx.Fail(fmt::format("padding '{}' is not supported (valid: SAME, VALID)", padding));
  }
  std::vector<int64_t> pads;
  for (size_t a = 0; a < 3; ++a) {
    const int64_t in = xs.dim(spatial[a]);
    if (padding == "VALID") {
      pads.insert(pads.end(), {0, 0});
      continue;
    }
    if (in < 0) {
      ctx.Fail(fmt::format("padding SAME needs the input's spatial dims, but x is {}; give the input's shape "
                           "(--input_shape)", xs.ToString()), /*unsupported=*/true);
    }
    const int64_t out = (in + strides[a] - 1) / strides[a];
    const int64_t total = std::max<int64_t>((out - 1) * strides[a] + (f[a] - 1) * dilations[a] + 1 - in, 0);
    pads.insert(pads.end(), {total / 2, total - total / 2});
  }
  if (channels_last) {
    x = ctx.Op("TransposeD", {x}, {{"perm", std::vector<int64_t>{0, 4, 1, 2, 3}}}, ctx.Name("to_ncdhw"));
  }
  Value* y = ctx.Op("Conv3D", {x, ctx.Constant("filter", std::move(filter))},
                    {{"strides", std::vector<int64_t>{1, 1, strides[0], strides[1], strides[2]}},
                     {"dilations", std::vector<int64_t>{1, 1, dilations[0], dilations[1], dilations[2]}},
                     {"pads", pads},
                     {"groups", groups}},
                    channels_last ? ctx.Name("ncdhw") : ctx.node().name());
  if (!channels_last) return {y};
  return {ctx.Op("TransposeD", {y}, {{"perm", std::vector<int64_t>{0, 2, 3, 4, 1}}}, ctx.node().name())};
}

std::vector<Value*> Pool(TfNodeContext& ctx, bool max) {
  Value* x = ctx.input(0);
  const Layout layout = LayoutOf(ctx);
  const std::vector<int64_t> ksize = Window(ctx, "ksize");
  const std::vector<int64_t> strides = Window(ctx, "strides");
  const std::vector<int64_t> pads =
      Pads(ctx, x->shape(), layout, {ksize[layout.h], ksize[layout.w]}, strides, {1, 1, 1, 1});
  std::map<std::string, AttrValue> attrs = {{"ksize", ksize},
                                            {"strides", strides},
                                            {"pads", pads},
                                            {"data_format", std::string(layout.channels_last ? "NHWC" : "NCHW")}};
  // TensorFlow averages only the window's positions inside x.
  if (!max) attrs["exclusive"] = true;
  return {ctx.Op(max ? "MaxPoolV3" : "AvgPoolV2", {x}, attrs, ctx.node().name())};
}

// ResizeBilinear of NHWC images to `size` [h, w]: ge's Resize (linear, every
// axis) to [N, h, w, C], N and C kept, with TensorFlow's coordinate mapping.
std::vector<Value*> ResizeBilinear(TfNodeContext& ctx) {
  Value* x = ctx.input(0);
  const std::vector<int64_t> size = ctx.ConstantInts(1, "size");
  const Shape& shape = x->shape();
  if (size.size() != 2) ctx.Fail("size must hold 2 values (height, width)");
  if (shape.unknown_rank() || shape.rank() != 4 || shape.dim(0) < 0 || shape.dim(3) < 0) {
    ctx.Fail(fmt::format("needs images of known batch and channels, got {}", shape.ToString()), /*unsupported=*/true);
  }
  const std::string mapping = ctx.Bool("align_corners", false)        ? "align_corners"
                              : ctx.Bool("half_pixel_centers", false) ? "half_pixel"
                                                                      : "asymmetric";
  const std::vector<int64_t> sizes = {shape.dim(0), size[0], size[1], shape.dim(3)};
  Value* sizes_value = ctx.Constant("sizes", Tensor::FromVector(DataType::kInt64, Shape({4}), sizes));
  return {ctx.Op("Resize", {x, nullptr, nullptr, sizes_value},
                 {{"mode", std::string("linear")}, {"coordinate_transformation_mode", mapping}}, ctx.node().name())};
}

}  // namespace

void AddConvTranslators(TfTranslators& table) {
  table["ResizeBilinear"] = ResizeBilinear;
  table["Conv2D"] = [](TfNodeContext& ctx) { return Convolution(ctx, false, false); };
  table["_FusedConv2D"] = [](TfNodeContext& ctx) { return Convolution(ctx, false, true); };
  table["DepthwiseConv2dNative"] = [](TfNodeContext& ctx) { return Convolution(ctx, true, false); };
  table["FusedDepthwiseConv2dNative"] = [](TfNodeContext& ctx) { return Convolution(ctx, true, true); };
  table["Conv2DBackpropInput"] = BackpropInput;
  table["Conv3D"] = Conv3D;
  table["MaxPool"] = [](TfNodeContext& ctx) { return Pool(ctx, true); };
  table["AvgPool"] = [](TfNodeContext& ctx) { return Pool(ctx, false); };
}

}  // namespace ge::tf_import
