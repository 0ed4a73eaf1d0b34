// Normalizations: BatchNorm (inference), LayerNorm, InstanceNorm, LRN, SoftmaxV2.
#include <fmt/core.h>

#include "graph/norm_layout.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

// BatchNorm and InstanceNorm: x [N, C, ...] with [C] parameters (graph/norm_layout.h); y is like x.
void InferChannelNorm(InferContext& ctx) {
  CheckChannelNorm(ctx.node(), NormUnknowns::kPass);
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
}

// gamma/beta must broadcast to the normalized trailing shape of x.
void CheckLayerNormParam(InferContext& ctx, size_t input, const Shape& x, int64_t begin_params_axis) {
  const Shape& param = ctx.input_shape(input);
  if (param.unknown_rank() || x.unknown_rank()) return;
  const std::vector<int64_t> tail(x.dims().begin() + begin_params_axis, x.dims().end());
  const char* what = input == 1 ? "gamma" : "beta";
  bool ok = param.rank() <= tail.size();
  for (size_t i = 0; ok && i < param.rank(); ++i) {
    const int64_t p = param.dim(param.rank() - 1 - i);
    const int64_t t = tail[tail.size() - 1 - i];
    ok = p == 1 || p == Shape::kUnknownDim || t == Shape::kUnknownDim || p == t;
  }
  if (!ok) {
    ctx.Fail(fmt::format("{} {} does not match the normalized dims {} of x {} (begin_params_axis {})", what,
                         param.ToString(), Shape(tail).ToString(), x.ToString(), begin_params_axis));
  }
}

// y like x; optional mean and variance keep x's rank with the normalized axes set to 1.
void InferLayerNorm(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const DataType dtype = ctx.input_dtype(0);
  ctx.set_output(0, dtype, x);
  if (x.unknown_rank()) {
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, dtype, Shape::UnknownRank());
    return;
  }
  const int64_t norm_axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "begin_norm_axis"), x.rank(), "begin_norm_axis");
  const int64_t params_axis =
      infer::Axis(ctx, infer::Attr<int64_t>(ctx, "begin_params_axis"), x.rank(), "begin_params_axis");
  CheckLayerNormParam(ctx, 1, x, params_axis);
  CheckLayerNormParam(ctx, 2, x, params_axis);
  std::vector<int64_t> stats = x.dims();
  std::fill(stats.begin() + norm_axis, stats.end(), 1);
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output(i, dtype, Shape(stats));
}

// x [N, C, ...]; the window runs along C.
void InferLrn(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (!x.unknown_rank() && x.rank() < 2) ctx.Fail(fmt::format("x must have rank >= 2, got {}", x.ToString()));
  if (infer::Attr<int64_t>(ctx, "depth_radius") < 0) ctx.Fail("attribute 'depth_radius' must be >= 0");
  const auto& region = infer::Attr<std::string>(ctx, "norm_region");
  if (region != "ACROSS_CHANNELS") {
    ctx.Fail(fmt::format("attribute 'norm_region' is '{}'; valid: ACROSS_CHANNELS", region));
  }
  ctx.set_output(0, ctx.input_dtype(0), x);
}


}  // namespace

void RegisterNormOps(OpRegistry& registry) {
  registry.Register(OpSchema("BatchNorm")
                        .Input("x")
                        .Input("scale")
                        .Input("offset")
                        .Input("mean")
                        .Input("variance")
                        .Output("y")
                        .Attr("epsilon", 1e-4f)
                        .Attr("data_format", std::string("NCHW"))
                        .Attr("is_training", false)
                        .TypeConstraint("T", types::Float())
                        .Infer(InferChannelNorm)
                        .Doc("(x - mean) / sqrt(variance + epsilon) * scale + offset over channel axis 1."));
  registry.Register(OpSchema("LayerNorm")
                        .Input("x")
                        .Input("gamma")
                        .Input("beta")
                        .Output("y")
                        .OptionalOutput("mean")
                        .OptionalOutput("variance")
                        .Attr("begin_norm_axis", int64_t{0})
                        .Attr("begin_params_axis", int64_t{0})
                        .Attr("epsilon", 1e-7f)
                        .TypeConstraint("T", types::Float())
                        .Infer(InferLayerNorm)
                        .InferSymbolic(symbolic::LayerNorm)
                        .Doc("Normalizes over axes [begin_norm_axis, rank); gamma and beta cover those axes."));
  registry.Register(OpSchema("InstanceNorm")
                        .Input("x")
                        .Input("gamma")
                        .Input("beta")
                        .Output("y")
                        .Attr("data_format", std::string("NCHW"))
                        .Attr("epsilon", 1e-6f)
                        .TypeConstraint("T", types::Float())
                        .Infer(InferChannelNorm)
                        .Doc("Normalizes each (n, c) plane over its spatial elements, then * gamma[c] + beta[c]."));
  registry.Register(OpSchema("LRN")
                        .Input("x")
                        .Output("y")
                        .Attr("depth_radius", int64_t{5})
                        .Attr("bias", 1.0f)
                        .Attr("alpha", 1.0f)
                        .Attr("beta", 0.5f)
                        .Attr("norm_region", std::string("ACROSS_CHANNELS"))
                        .TypeConstraint("T", types::Float())
                        .Infer(InferLrn)
                        .InferSymbolic(symbolic::BatchPassThrough)
                        .Doc("x / (bias + alpha * sum of x^2 over channels c-depth_radius..c+depth_radius)^beta."));
  registry.Register(OpSchema("SoftmaxV2")
                        .Input("x")
                        .Output("y")
                        .Attr("axes", std::vector<int64_t>{-1})
                        .TypeConstraint("T", types::Float())
                        .Infer(infer::InferAxesNormalization)
                        .InferSymbolic(symbolic::SameAsInput)
                        .Doc("Softmax over the listed axes."));
}

}  // namespace ge
