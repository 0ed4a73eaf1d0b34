// Loss functions: NLLLoss (ONNX NegativeLogLikelihoodLoss; SoftmaxCrossEntropyLoss
// is imported as LogSoftmaxV2 + NLLLoss, as its ONNX function body does).
#include <fmt/core.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/loss_ops.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

// x [N, C, d1..dk], target [N, d1..dk], optional weight [C]. reduction "none"
// keeps target's shape; "sum" and "mean" give a scalar.
void InferNllLoss(InferContext& ctx) {
  const auto& reduction = infer::Attr<std::string>(ctx, "reduction");
  if (reduction != "none" && reduction != "sum" && reduction != "mean") {
    ctx.Fail(fmt::format("attribute 'reduction' is '{}'; valid: none, sum, mean", reduction));
  }
  const Shape& x = ctx.input_shape(0);
  const Shape& target = ctx.input_shape(1);
  if (!x.unknown_rank() && x.rank() < 2) ctx.Fail(fmt::format("x must have rank >= 2, got {}", x.ToString()));
  Shape loss = target;
  if (!x.unknown_rank()) {
    infer::RequireRank(ctx, target, x.rank() - 1, "target");
    std::vector<int64_t> dims = x.dims();
    dims.erase(dims.begin() + 1);  // the class axis
    if (!target.unknown_rank()) {
      for (size_t d = 0; d < dims.size(); ++d) {
        dims[d] = infer::MergeDim(ctx, dims[d], target.dim(d), fmt::format("dim {} of target and x", d));
      }
    }
    loss = Shape(dims);
  }
  if (ctx.has_input(2)) {
    const Shape& weight = ctx.input_shape(2);
    infer::RequireRank(ctx, weight, 1, "weight");
    if (!weight.unknown_rank() && !x.unknown_rank()) {
      infer::MergeDim(ctx, x.dim(1), weight.dim(0), "classes of x and length of weight");
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), reduction == "none" ? loss : Shape{});
}

}  // namespace

void RegisterLossOps(OpRegistry& registry) {
  registry.Register(OpSchema("NLLLoss")
                        .Input("x")
                        .Input("target", "TIndex")
                        .OptionalInput("weight")
                        .Output("y")
                        .Attr("reduction", std::string("mean"))
                        .Attr("ignore_index", kNllLossNoIgnoreIndex)
                        .TypeConstraint("T", types::Float())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferNllLoss)
                        .Doc("Negative log-likelihood: -weight[t] * x[n, t, d...] at each target class t; "
                             "ignore_index targets contribute 0 (and weight 0). mean divides the sum by the "
                             "total weight of the targets not ignored."));
}

}  // namespace ge
