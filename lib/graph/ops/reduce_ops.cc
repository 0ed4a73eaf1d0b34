// Reductions over a constant list of axes: Reduce{Mean,Sum,Max,Min,Prod}D.
#include <fmt/format.h>

#include <set>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

// Empty axes reduce every dim; reduced dims become 1 with keep_dims, else vanish.
void InferReduce(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto& axes = infer::Attr<std::vector<int64_t>>(ctx, "axes");
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
    const bool reduce = axes.empty() || reduced.count(static_cast<int64_t>(i)) != 0;
    if (!reduce) {
      dims.push_back(x.dim(i));
    } else if (keep_dims) {
      dims.push_back(1);
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

void RegisterReduce(OpRegistry& registry, const char* op_type, const char* doc) {
  registry.Register(OpSchema(op_type)
                        .Input("x")
                        .Output("y")
                        .RequiredAttr("axes", AttrType::kInts)
                        .Attr("keep_dims", false)
                        .TypeConstraint("T", types::Float())
                        .Infer(InferReduce)
                        .Doc(doc));
}

}  // namespace

void RegisterReduceOps(OpRegistry& registry) {
  RegisterReduce(registry, "ReduceMeanD", "mean over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceSumD", "sum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceMaxD", "maximum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceMinD", "minimum over axes (empty axes = all)");
  RegisterReduce(registry, "ReduceProdD", "product over axes (empty axes = all)");
}

}  // namespace ge
