// Reductions over a constant list of axes: Reduce{Mean,Sum,Max,Min,Prod}D and
// Reduce{L1,L2,SumSquare,LogSum,LogSumExp}D (ONNX's norm-like reductions);
// ReduceSum, whose axes are an input.
#include <fmt/format.h>

#include <set>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

// Empty axes reduce every dim (or none with `noop_when_empty`); reduced dims
// become 1 with keep_dims, else vanish.
void InferReduceOver(InferContext& ctx, const std::vector<int64_t>& axes, bool noop_when_empty) {
  const Shape& x = ctx.input_shape(0);
  const bool keep_dims = infer::Attr<bool>(ctx, "keep_dims");
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  std::set<int64_t> reduced;
  for (int64_t axis : axes) {
    if (!reduced.insert(infer::Axis(ctx, axis, x.rank(), "attribute 'axes'")).second) {
      ctx.Fail(fmt::format("attribute 'axes' [{}] repeats axis {}", fmt::join(axes, ", "), axis));
    }
  }
  std::vector<int64_t> dims;
  for (size_t i = 0; i < x.rank(); ++i) {
    const bool reduce = (axes.empty() && !noop_when_empty) || reduced.count(static_cast<int64_t>(i)) != 0;
    if (!reduce) {
      dims.push_back(x.dim(i));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

void InferReduce(InferContext& ctx) {
  InferReduceOver(ctx, infer::Attr<std::vector<int64_t>>(ctx, "axes"), false);
}

// ReduceSum: exact when the axes input is constant (or absent); otherwise
// keep_dims keeps the rank with unknown dims, and without it even the rank
// is unknown.
void InferReduceSum(InferContext& ctx) {
  const bool noop = infer::Attr<bool>(ctx, "noop_with_empty_axes");
  if (!ctx.has_input(1)) return InferReduceOver(ctx, {}, noop);
  if (auto axes = infer::ConstantInts(ctx, 1)) return InferReduceOver(ctx, *axes, noop);
  const Shape& x = ctx.input_shape(0);
  if (x.unknown_rank() || !infer::Attr<bool>(ctx, "keep_dims")) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
  } else {
    ctx.set_output(0, ctx.input_dtype(0), Shape(std::vector<int64_t>(x.rank(), Shape::kUnknownDim)));
  }
}

void RegisterReduce(OpRegistry& registry, const char* op_type, const char* doc) {
  registry.Register(OpSchema(op_type)
                        .Input("x")
                        .Output("y")
                        .RequiredAttr("axes", AttrType::kInts)
                        .Attr("keep_dims", false)
                        .TypeConstraint("T", types::Numeric())
                        .Infer(InferReduce)
                        .InferSymbolic(symbolic::Reduce)
                        .Doc(doc));
}

}  // namespace

void RegisterReduceOps(OpRegistry& registry) {
  RegisterReduce(registry, "ReduceMeanD", "mean over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceSumD", "sum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceMaxD", "maximum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceMinD", "minimum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceProdD", "product over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceL1D", "sum of absolute values over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceL2D", "square root of the sum of squares over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceSumSquareD", "sum of squares over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceLogSumD", "natural log of the sum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceLogSumExpD", "log of the sum of exponentials over axes (empty axes = all)");
  registry.Register(OpSchema("ReduceSum")
                        .Input("x")
                        .OptionalInput("axes", "TAxes")
                        .Output("y")
                        .Attr("keep_dims", false)
                        .Attr("noop_with_empty_axes", false)
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TAxes", types::IndexTypes())
                        .Infer(InferReduceSum)
                        .Doc("sum over the axes input, read at run time (empty: all, or none with "
                             "noop_with_empty_axes)"));
}

}  // namespace ge
