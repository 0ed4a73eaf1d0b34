// Caffe layers as ge ops. Caffe is NCHW, as ge's native layout, and its
// convolution filters are ge's [Cout, Cin/group, kh, kw], so weights are
// used as stored. Caffe's conventions are kept where they differ from
// ONNX's: pooling rounds its output size up (the last window must start
// inside the padded input), BatchNorm's statistics are divided by the
// stored moving-average factor, InnerProduct flattens from its axis.
#include "graph/caffe/caffe_layers.h"

#include <cmath>

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/framework_source.h"

namespace ge::caffe_import {

Value* CaffeLayerContext::bottom(size_t i) const {
  if (i >= bottoms_.size()) Fail(fmt::format("has {} bottoms; bottom {} is needed", bottoms_.size(), i));
  return bottoms_[i];
}

Tensor CaffeLayerContext::Blob(size_t i) const {
  if (i >= num_blobs()) Fail(fmt::format("has {} blobs; blob {} is needed (no weights for it in the .caffemodel?)",
                                         num_blobs(), i));
  const ge::caffe::BlobProto& blob = layer_.blobs(static_cast<int>(i));
  std::vector<int64_t> dims;
  if (blob.has_shape()) {
    dims.assign(blob.shape().dim().begin(), blob.shape().dim().end());
  } else {
    dims = {blob.num(), blob.channels(), blob.height(), blob.width()};
  }
  int64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count)) Fail(fmt::format("blob {} has an invalid shape", i));
  }
  const int64_t stored = blob.data_size() > 0 ? blob.data_size() : blob.double_data_size();
  if (stored != count) Fail(fmt::format("blob {} holds {} values for a shape of {}", i, stored, count));
  Tensor tensor(DataType::kFloat, Shape(std::move(dims)));
  auto* out = static_cast<float*>(tensor.data());
  for (int64_t k = 0; k < count; ++k) {
    out[k] = blob.data_size() > 0 ? blob.data(static_cast<int>(k)) : static_cast<float>(blob.double_data(static_cast<int>(k)));
  }
  return tensor;
}

Value* CaffeLayerContext::Op(const std::string& op_type, const std::vector<Value*>& inputs,
                             const std::map<std::string, AttrValue>& attrs, const std::string& suffix) {
  Value* y = nullptr;
  try {
    y = builder_.Op(op_type, inputs, attrs, 1, suffix.empty() ? layer_.name() : layer_.name() + "#" + suffix)[0];
  } catch (const Error& e) {
    Fail(fmt::format("as ge {}: {}", op_type, e.what()));
  }
  MarkFrameworkSource(*y->producer(), "Caffe", layer_.type());
  return y;
}

Value* CaffeLayerContext::Constant(const std::string& suffix, Tensor value) {
  return builder_.Constant(layer_.name() + "#" + suffix, std::move(value));
}

void CaffeLayerContext::Fail(const std::string& message, bool unsupported) const {
  throw Error(unsupported ? ErrorCode::kUnsupported : ErrorCode::kInvalidModel,
              fmt::format("{}: layer '{}' ({}): {}", origin_, layer_.name(), layer_.type(), message));
}

namespace {

// A window parameter given as a repeated value (1 for both axes, or one per
// axis), or as its _h/_w pair.
std::pair<int64_t, int64_t> HeightWidth(CaffeLayerContext& ctx, const google::protobuf::RepeatedField<uint32_t>& values,
                                        bool has_h, uint32_t h, uint32_t w, int64_t fallback, const char* what) {
  if (has_h) return {h, w};
  if (values.empty()) return {fallback, fallback};
  if (values.size() == 1) return {values[0], values[0]};
  if (values.size() == 2) return {values[0], values[1]};
  ctx.Fail(fmt::format("{} has {} values; 2-D layers take 1 or 2", what, values.size()), /*unsupported=*/true);
}

const Shape& StaticShape(CaffeLayerContext& ctx, const Value* x, size_t rank) {
  const Shape& s = x->shape();
  if (!s.IsStatic() || (rank != 0 && s.rank() != rank)) {
    ctx.Fail(fmt::format("needs a bottom of static shape{}, got {}", rank ? fmt::format(" and rank {}", rank) : "",
                         s.ToString()), /*unsupported=*/true);
  }
  return s;
}

// A per-channel vector [C] reshaped to [C, 1, ...] to broadcast over x from axis 1.
Tensor PerChannel(const Tensor& values, size_t rank) {
  std::vector<int64_t> dims = {values.shape().NumElements()};
  for (size_t i = 2; i < rank; ++i) dims.push_back(1);
  Tensor shaped(DataType::kFloat, Shape(std::move(dims)));
  std::copy_n(static_cast<const float*>(values.data()), values.shape().NumElements(), static_cast<float*>(shaped.data()));
  return shaped;
}

std::vector<Value*> Convolution(CaffeLayerContext& ctx, bool transposed) {
  const ge::caffe::ConvolutionParameter& p = ctx.layer().convolution_param();
  if (p.axis() != 1) ctx.Fail("only axis 1 (NCHW) is supported", true);
  Value* x = ctx.bottom(0);
  const auto [kh, kw] = HeightWidth(ctx, p.kernel_size(), p.has_kernel_h(), p.kernel_h(), p.kernel_w(), 0, "kernel_size");
  const auto [ph, pw] = HeightWidth(ctx, p.pad(), p.has_pad_h(), p.pad_h(), p.pad_w(), 0, "pad");
  const auto [sh, sw] = HeightWidth(ctx, p.stride(), p.has_stride_h(), p.stride_h(), p.stride_w(), 1, "stride");
  const auto [dh, dw] = HeightWidth(ctx, p.dilation(), false, 0, 0, 1, "dilation");
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1 || dh < 1 || dw < 1) ctx.Fail("kernel, stride and dilation must be >= 1");
  Tensor filter = ctx.Blob(0);
  if (filter.shape().rank() != 4 || filter.shape().dim(2) != kh || filter.shape().dim(3) != kw) {
    ctx.Fail(fmt::format("filter blob {} does not match kernel {}x{}", filter.shape().ToString(), kh, kw));
  }
  std::vector<Value*> inputs;
  if (transposed) {
    const Shape& s = StaticShape(ctx, x, 4);
    const int64_t cout = filter.shape().dim(1) * p.group();
    const int64_t oh = (s.dim(2) - 1) * sh - 2 * ph + dh * (kh - 1) + 1;
    const int64_t ow = (s.dim(3) - 1) * sw - 2 * pw + dw * (kw - 1) + 1;
    inputs.push_back(ctx.Constant("input_size", Tensor::FromVector(DataType::kInt64, Shape({4}),
                                                                    std::vector<int64_t>{s.dim(0), cout, oh, ow})));
  }
  inputs.push_back(x);
  inputs.push_back(ctx.Constant("filter", std::move(filter)));
  if (p.bias_term()) inputs.push_back(ctx.Constant("bias", ctx.Blob(1)));
  return {ctx.Op(transposed ? "Conv2DTranspose" : "Conv2D", inputs,
                 {{"strides", std::vector<int64_t>{1, 1, sh, sw}},
                  {"pads", std::vector<int64_t>{ph, ph, pw, pw}},
                  {"dilations", std::vector<int64_t>{1, 1, dh, dw}},
                  {"groups", static_cast<int64_t>(p.group())}})};
}

// Caffe's pooled length: rounded up (CEIL, the default) or down, and with
// padding the last window must start inside the padded input.
int64_t PooledLength(int64_t in, int64_t kernel, int64_t pad, int64_t stride, bool ceil) {
  const int64_t span = in + 2 * pad - kernel;
  int64_t out = (ceil ? (span + stride - 1) / stride : span / stride) + 1;
  if (pad > 0 && (out - 1) * stride >= in + pad) --out;
  return out;
}

std::vector<Value*> Pooling(CaffeLayerContext& ctx) {
  const ge::caffe::PoolingParameter& p = ctx.layer().pooling_param();
  Value* x = ctx.bottom(0);
  const Shape& s = StaticShape(ctx, x, 4);
  const bool max = p.pool() == ge::caffe::PoolingParameter::MAX;
  if (!max && p.pool() != ge::caffe::PoolingParameter::AVE) ctx.Fail("only MAX and AVE pooling are supported", true);
  int64_t kh = p.has_kernel_h() ? p.kernel_h() : p.kernel_size(), kw = p.has_kernel_h() ? p.kernel_w() : p.kernel_size();
  int64_t ph = p.has_pad_h() ? p.pad_h() : p.pad(), pw = p.has_pad_h() ? p.pad_w() : p.pad();
  int64_t sh = p.has_stride_h() ? p.stride_h() : p.stride(), sw = p.has_stride_h() ? p.stride_w() : p.stride();
  if (p.global_pooling()) {
    kh = s.dim(2), kw = s.dim(3), ph = pw = 0, sh = sw = 1;
  }
  if (kh < 1 || kw < 1 || sh < 1 || sw < 1) ctx.Fail("kernel and stride must be >= 1");
  const bool ceil = p.round_mode() == ge::caffe::PoolingParameter::CEIL;
  const int64_t oh = PooledLength(s.dim(2), kh, ph, sh, ceil), ow = PooledLength(s.dim(3), kw, pw, sw, ceil);
  // The end padding that gives Caffe's lengths with floor rounding.
  const int64_t eh = (oh - 1) * sh + kh - s.dim(2) - ph, ew = (ow - 1) * sw + kw - s.dim(3) - pw;
  // Caffe's average divides by the window clipped to the padded input, not
  // to the extra end padding: exclusive where there is no padding at all.
  if (!max && (ph > 0 || pw > 0) && (eh > ph || ew > pw)) {
    ctx.Fail("average pooling whose rounded-up windows pass the padding is not supported", true);
  }
  std::map<std::string, AttrValue> attrs = {{"ksize", std::vector<int64_t>{1, 1, kh, kw}},
                                            {"strides", std::vector<int64_t>{1, 1, sh, sw}},
                                            {"pads", std::vector<int64_t>{ph, std::max<int64_t>(eh, 0), pw,
                                                                          std::max<int64_t>(ew, 0)}}};
  if (!max) attrs["exclusive"] = ph == 0 && pw == 0;
  Value* y = ctx.Op(max ? "MaxPoolV3" : "AvgPoolV2", {x}, attrs);
  // Quantization's Caffe rules read the mode and the global flag the window hides.
  SetFrameworkParam(*y->producer(), "pool", static_cast<int64_t>(p.pool()));
  SetFrameworkParam(*y->producer(), "global_pooling", p.global_pooling());
  return {y};
}

// y = x W^T + b over x flattened from `axis`: [prod(dims < axis), K] x [N, K]^T.
std::vector<Value*> InnerProduct(CaffeLayerContext& ctx) {
  const ge::caffe::InnerProductParameter& p = ctx.layer().inner_product_param();
  Value* x = ctx.bottom(0);
  const Shape& s = StaticShape(ctx, x, 0);
  const auto rank = static_cast<int64_t>(s.rank());
  const int64_t axis = p.axis() < 0 ? p.axis() + rank : p.axis();
  if (axis < 0 || axis >= rank) ctx.Fail(fmt::format("axis {} is out of range for a bottom of rank {}", p.axis(), rank));
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= s.dim(d);
  Tensor weights = ctx.Blob(0);
  if (weights.shape().NumElements() != inner * static_cast<int64_t>(p.num_output())) {
    ctx.Fail(fmt::format("weights {} do not take {} inputs to {} outputs", weights.shape().ToString(), inner,
                         p.num_output()));
  }
  const auto n = static_cast<int64_t>(p.num_output());
  Tensor matrix(DataType::kFloat, p.transpose() ? Shape({inner, n}) : Shape({n, inner}));
  std::copy_n(static_cast<const float*>(weights.data()), weights.shape().NumElements(), static_cast<float*>(matrix.data()));
  Value* flat = ctx.Op("Reshape", {x, ctx.Constant("shape", Tensor::FromVector(DataType::kInt64, Shape({2}),
                                                                                 std::vector<int64_t>{outer, inner}))},
                       {}, "flatten");
  std::vector<Value*> inputs = {flat, ctx.Constant("weights", std::move(matrix))};
  if (p.bias_term()) inputs.push_back(ctx.Constant("bias", ctx.Blob(1)));
  const bool reshape_back = axis > 1;
  Value* y = ctx.Op("MatMulV2", inputs, {{"transpose_x2", !p.transpose()}}, reshape_back ? "matmul" : "");
  SetFrameworkParam(*y->producer(), "transpose", p.transpose());  // for quantization's Caffe rules
  SetFrameworkParam(*y->producer(), "axis", static_cast<int64_t>(p.axis()));
  if (!reshape_back) return {y};
  std::vector<int64_t> dims(s.dims().begin(), s.dims().begin() + axis);
  dims.push_back(n);
  return {ctx.Op("Reshape", {y, ctx.Constant("out_shape", Tensor::FromVector(DataType::kInt64,
                                                                             Shape({static_cast<int64_t>(dims.size())}),
                                                                             dims))},
                 {})};
}

std::vector<Value*> Eltwise(CaffeLayerContext& ctx) {
  const ge::caffe::EltwiseParameter& p = ctx.layer().eltwise_param();
  if (ctx.num_bottoms() < 2) ctx.Fail("needs at least two bottoms");
  const bool sum = p.operation() == ge::caffe::EltwiseParameter::SUM;
  if (p.coeff_size() > 0 && (!sum || static_cast<size_t>(p.coeff_size()) != ctx.num_bottoms())) {
    ctx.Fail("coeff needs SUM and one value per bottom");
  }
  auto term = [&](size_t i) {
    Value* x = ctx.bottom(i);
    if (p.coeff_size() == 0 || p.coeff(static_cast<int>(i)) == 1.0f) return x;
    Value* c = ctx.Constant(fmt::format("coeff_{}", i),
                            Tensor::FromVector(DataType::kFloat, Shape(), std::vector<float>{p.coeff(static_cast<int>(i))}));
    return ctx.Op("Mul", {x, c}, {}, fmt::format("scaled_{}", i));
  };
  const char* op = sum ? "Add" : p.operation() == ge::caffe::EltwiseParameter::PROD ? "Mul" : "Maximum";
  Value* y = term(0);
  for (size_t i = 1; i < ctx.num_bottoms(); ++i) {
    y = ctx.Op(op, {y, term(i)}, {}, i + 1 == ctx.num_bottoms() ? "" : fmt::format("partial_{}", i));
    SetFrameworkParam(*y->producer(), "operation", static_cast<int64_t>(p.operation()));  // for quantization's rules
  }
  return {y};
}

// Caffe's BatchNorm: the stored mean and variance are sums scaled by the
// moving-average factor (blob 2), divided out here; no scale or shift (a
// Scale layer follows).
std::vector<Value*> BatchNorm(CaffeLayerContext& ctx) {
  Value* x = ctx.bottom(0);
  const size_t rank = x->shape().unknown_rank() ? 4 : x->shape().rank();
  Tensor mean = ctx.Blob(0), variance = ctx.Blob(1);
  const Tensor factor_blob = ctx.Blob(2);
  const float stored = factor_blob.shape().NumElements() > 0 ? static_cast<const float*>(factor_blob.data())[0] : 1.0f;
  const float factor = stored == 0 ? 0.0f : 1.0f / stored;
  const int64_t channels = mean.shape().NumElements();
  if (variance.shape().NumElements() != channels) ctx.Fail("mean and variance differ in length");
  const float eps = ctx.layer().batch_norm_param().eps();
  Tensor scale(DataType::kFloat, Shape({channels})), shift(DataType::kFloat, Shape({channels}));
  for (int64_t c = 0; c < channels; ++c) {
    const float m = static_cast<const float*>(mean.data())[c] * factor;
    const float v = static_cast<const float*>(variance.data())[c] * factor;
    const float s = 1.0f / std::sqrt(v + eps);
    static_cast<float*>(scale.data())[c] = s;
    static_cast<float*>(shift.data())[c] = -m * s;
  }
  Value* scaled = ctx.Op("Mul", {x, ctx.Constant("scale", PerChannel(scale, rank))}, {}, "scaled");
  return {ctx.Op("Add", {scaled, ctx.Constant("shift", PerChannel(shift, rank))}, {})};
}

std::vector<Value*> Scale(CaffeLayerContext& ctx) {
  const ge::caffe::ScaleParameter& p = ctx.layer().scale_param();
  if (ctx.num_bottoms() != 1 || p.axis() != 1 || p.num_axes() != 1) {
    ctx.Fail("only a learned per-channel scale (one bottom, axis 1, num_axes 1) is supported", true);
  }
  Value* x = ctx.bottom(0);
  const size_t rank = x->shape().unknown_rank() ? 4 : x->shape().rank();
  Value* y = ctx.Op("Mul", {x, ctx.Constant("gamma", PerChannel(ctx.Blob(0), rank))}, {}, p.bias_term() ? "mul" : "");
  if (!p.bias_term()) return {y};
  return {ctx.Op("Add", {y, ctx.Constant("beta", PerChannel(ctx.Blob(1), rank))}, {})};
}

std::vector<Value*> ReLU(CaffeLayerContext& ctx) {
  const float slope = ctx.layer().relu_param().negative_slope();
  if (slope == 0) return {ctx.Op("Relu", {ctx.bottom(0)}, {})};
  return {ctx.Op("LeakyRelu", {ctx.bottom(0)}, {{"negative_slope", slope}})};
}

std::vector<Value*> PReLU(CaffeLayerContext& ctx) {
  Value* x = ctx.bottom(0);
  const size_t rank = x->shape().unknown_rank() ? 4 : x->shape().rank();
  return {ctx.Op("PRelu", {x, ctx.Constant("slope", PerChannel(ctx.Blob(0), rank))}, {})};
}

std::vector<Value*> Concat(CaffeLayerContext& ctx) {
  const ge::caffe::ConcatParameter& p = ctx.layer().concat_param();
  const int64_t axis = p.has_axis() ? p.axis() : p.concat_dim();
  std::vector<Value*> inputs;
  for (size_t i = 0; i < ctx.num_bottoms(); ++i) inputs.push_back(ctx.bottom(i));
  return {ctx.Op("ConcatD", inputs, {{"concat_dim", axis}, {"N", static_cast<int64_t>(inputs.size())}})};
}

std::vector<Value*> Softmax(CaffeLayerContext& ctx) {
  return {ctx.Op("SoftmaxV2", {ctx.bottom(0)}, {{"axes", std::vector<int64_t>{ctx.layer().softmax_param().axis()}}})};
}

Value* ReshapeTo(CaffeLayerContext& ctx, Value* x, const std::vector<int64_t>& dims) {
  return ctx.Op("Reshape", {x, ctx.Constant("shape", Tensor::FromVector(DataType::kInt64,
                                                                        Shape({static_cast<int64_t>(dims.size())}), dims))},
                {});
}

std::vector<Value*> Flatten(CaffeLayerContext& ctx) {
  Value* x = ctx.bottom(0);
  const Shape& s = StaticShape(ctx, x, 0);
  const auto rank = static_cast<int64_t>(s.rank());
  const ge::caffe::FlattenParameter& p = ctx.layer().flatten_param();
  const int64_t axis = p.axis() < 0 ? p.axis() + rank : p.axis();
  const int64_t end = p.end_axis() < 0 ? p.end_axis() + rank : p.end_axis();
  if (axis < 0 || end >= rank || axis > end) ctx.Fail(fmt::format("axes {}..{} do not fit rank {}", p.axis(), p.end_axis(), rank));
  std::vector<int64_t> dims(s.dims().begin(), s.dims().begin() + axis);
  int64_t merged = 1;
  for (int64_t d = axis; d <= end; ++d) merged *= s.dim(d);
  dims.push_back(merged);
  dims.insert(dims.end(), s.dims().begin() + end + 1, s.dims().end());
  return {ReshapeTo(ctx, x, dims)};
}

// Caffe's 0 copies the bottom's dim, -1 is inferred: as ge's Reshape.
std::vector<Value*> Reshape(CaffeLayerContext& ctx) {
  const ge::caffe::ReshapeParameter& p = ctx.layer().reshape_param();
  if (p.axis() != 0 || p.num_axes() != -1) ctx.Fail("only axis 0 with num_axes -1 is supported", true);
  return {ReshapeTo(ctx, ctx.bottom(0), std::vector<int64_t>(p.shape().dim().begin(), p.shape().dim().end()))};
}

// Across channels: x / (k + alpha / n * sum of squares over n channels)^beta.
std::vector<Value*> LRN(CaffeLayerContext& ctx) {
  const ge::caffe::LRNParameter& p = ctx.layer().lrn_param();
  if (p.norm_region() != ge::caffe::LRNParameter::ACROSS_CHANNELS) ctx.Fail("only ACROSS_CHANNELS is supported", true);
  if (p.local_size() % 2 == 0) ctx.Fail("local_size must be odd");
  const auto n = static_cast<int64_t>(p.local_size());
  return {ctx.Op("LRN", {ctx.bottom(0)},
                 {{"depth_radius", (n - 1) / 2}, {"bias", p.k()}, {"alpha", p.alpha() / static_cast<float>(n)},
                  {"beta", p.beta()}})};
}

std::vector<Value*> Unary(CaffeLayerContext& ctx, const char* op) { return {ctx.Op(op, {ctx.bottom(0)}, {})}; }

// Dropout at inference and Split: their tops are their bottom.
std::vector<Value*> PassThrough(CaffeLayerContext& ctx) {
  std::vector<Value*> tops;
  for (int i = 0; i < std::max(1, ctx.layer().top_size()); ++i) {
    tops.push_back(ctx.Op("Identity", {ctx.bottom(0)}, {}, i == 0 ? "" : fmt::format("{}", i)));
  }
  return tops;
}

}  // namespace

const std::map<std::string, CaffeTranslator, std::less<>>& CaffeTranslators() {
  static const std::map<std::string, CaffeTranslator, std::less<>> table = {
      {"Convolution", [](CaffeLayerContext& ctx) { return Convolution(ctx, false); }},
      {"Deconvolution", [](CaffeLayerContext& ctx) { return Convolution(ctx, true); }},
      {"InnerProduct", InnerProduct},
      {"Pooling", Pooling},
      {"Eltwise", Eltwise},
      {"ReLU", ReLU},
      {"PReLU", PReLU},
      {"Sigmoid", [](CaffeLayerContext& ctx) { return Unary(ctx, "Sigmoid"); }},
      {"TanH", [](CaffeLayerContext& ctx) { return Unary(ctx, "Tanh"); }},
      {"BatchNorm", BatchNorm},
      {"Scale", Scale},
      {"Concat", Concat},
      {"Softmax", Softmax},
      {"Flatten", Flatten},
      {"Reshape", Reshape},
      {"Dropout", PassThrough},
      {"Split", PassThrough},
      {"LRN", LRN},
  };
  return table;
}

}  // namespace ge::caffe_import
