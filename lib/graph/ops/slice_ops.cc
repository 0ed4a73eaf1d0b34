// Ops that join, split or select parts of tensors: ConcatD, SplitVD,
// StridedSliceV2, GatherV2D.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>
#include <set>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

void InferConcat(InferContext& ctx) {
  const int64_t n = infer::Attr<int64_t>(ctx, "N");
  if (n != static_cast<int64_t>(ctx.num_inputs())) {
    ctx.Fail(fmt::format("attribute 'N' = {} but the node has {} inputs", n, ctx.num_inputs()));
  }
  // The first input of known rank fixes the rank; the others must agree off the concat axis.
  std::optional<std::vector<int64_t>> out;
  int64_t axis = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& x = ctx.input_shape(i);
    if (x.unknown_rank()) continue;
    if (!out) {
      axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "concat_dim"), x.rank(), "attribute 'concat_dim'");
      out = std::vector<int64_t>(x.rank(), kUnknown);
      (*out)[axis] = 0;
    }
    if (x.rank() != out->size()) {
      ctx.Fail(fmt::format("input {} has shape {} but earlier inputs have rank {}", i, x.ToString(), out->size()));
    }
    for (size_t d = 0; d < x.rank(); ++d) {
      if (static_cast<int64_t>(d) != axis) {
        (*out)[d] = infer::MergeDim(ctx, (*out)[d], x.dim(d),
                                    [&] { return fmt::format("dim {} of input {} {}", d, i, x.ToString()); });
      }
    }
    int64_t& sum = (*out)[axis];
    if (sum == kUnknown || x.dim(axis) == kUnknown) {
      sum = kUnknown;
    } else {
      sum = infer::CheckedDimAdd(ctx, sum, x.dim(axis), [&] {
        return fmt::format("the lengths along the concat axis up to input {} {}", i, x.ToString());
      });
    }
  }
  // An input of unknown rank contributes an unknown length along the axis.
  bool any_unknown_rank = false;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) any_unknown_rank = any_unknown_rank || ctx.input_shape(i).unknown_rank();
  if (out && any_unknown_rank) (*out)[axis] = kUnknown;
  ctx.set_output(0, ctx.input_dtype(0), out ? Shape(std::move(*out)) : Shape::UnknownRank());
}

void InferSplit(InferContext& ctx) {
  // The optional size_splits input (ONNX's run-time split) replaces the attribute.
  std::optional<std::vector<int64_t>> from_input;
  if (ctx.has_input(1)) {
    from_input = infer::ConstantInts(ctx, 1);
    if (!from_input) {
      // Sizes known at run time only: the pieces' length along the axis is unknown.
      const Shape& x = ctx.input_shape(0);
      Shape piece = x;
      if (!x.unknown_rank()) {
        piece.dim(infer::Axis(ctx, infer::Attr<int64_t>(ctx, "split_dim"), x.rank(), "attribute 'split_dim'")) =
            kUnknown;
      }
      for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input_dtype(0), piece);
      return;
    }
  }
  const std::vector<int64_t>& sizes =
      from_input ? *from_input : infer::Attr<std::vector<int64_t>>(ctx, "size_splits");
  const int64_t num_split = infer::Attr<int64_t>(ctx, "num_split");
  if (num_split < 1 || static_cast<size_t>(num_split) != sizes.size() ||
      ctx.num_outputs() != static_cast<size_t>(num_split)) {
    ctx.Fail(
        fmt::format("num_split ({}), the length of size_splits [{}] and the number of outputs ({}) must be "
                    "equal and positive",
                    num_split, fmt::join(sizes, ", "), ctx.num_outputs()));
  }
  const Shape& x = ctx.input_shape(0);
  if (x.unknown_rank()) {
    for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  const int64_t axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "split_dim"), x.rank(), "attribute 'split_dim'");
  const int64_t length = x.dim(axis);
  std::vector<int64_t> resolved = sizes;
  const auto inferred = std::find(resolved.begin(), resolved.end(), -1);
  int64_t known_sum = 0;
  for (int64_t s : sizes) {
    if (s < -1 || (s == -1 && std::count(sizes.begin(), sizes.end(), -1) > 1)) {
      ctx.Fail(fmt::format("size_splits [{}] must be sizes >= 0 with at most one -1", fmt::join(sizes, ", ")));
    }
    if (s > 0) {
      known_sum =
          infer::CheckedDimAdd(ctx, known_sum, s, fmt::format("the sum of size_splits [{}]", fmt::join(sizes, ", ")));
    }
  }
  if (length != kUnknown) {
    const bool fits = inferred != resolved.end() ? known_sum <= length : known_sum == length;
    if (!fits) {
      ctx.Fail(fmt::format("size_splits [{}] do not add up to dim {} of x {} ({})", fmt::join(sizes, ", "), axis,
                           x.ToString(), length));
    }
    if (inferred != resolved.end()) *inferred = length - known_sum;
  } else if (inferred != resolved.end()) {
    *inferred = kUnknown;
  }
  for (size_t i = 0; i < resolved.size(); ++i) {
    std::vector<int64_t> dims = x.dims();
    dims[axis] = resolved[i];
    ctx.set_output(i, ctx.input_dtype(0), Shape(std::move(dims)));
  }
}

// ONNX Slice along one dim of known length: negative positions count from the
// end, positions clamp to the valid range, and the step may be negative.
// Steps may be any int64 (INT64_MAX and INT64_MIN take one element), so the
// ceiling division is 1 + (span - 1) / step: span - 1 + step or -step would
// overflow.
int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (dim == 0) return 0;
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? 1 + (end - start - 1) / step : 0;
  }
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  // Truncating division by the negative step negates the quotient.
  return start > end ? 1 - (start - end - 1) / step : 0;
}

void InferStridedSlice(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  const auto begin = infer::ConstantInts(ctx, 1);
  const auto end = infer::ConstantInts(ctx, 2);
  const auto axes_const = infer::ConstantInts(ctx, 3);
  const auto steps_const = infer::ConstantInts(ctx, 4);
  const bool all_constant = begin && end && (!ctx.has_input(3) || axes_const) && (!ctx.has_input(4) || steps_const);
  if (!all_constant) {
    // Without the slice bounds only the rank is known.
    ctx.set_output(0, ctx.input_dtype(0), Shape(std::vector<int64_t>(x.rank(), kUnknown)));
    return;
  }
  std::vector<int64_t> axes(begin->size());
  std::iota(axes.begin(), axes.end(), 0);
  if (axes_const) axes = *axes_const;
  const std::vector<int64_t> steps = steps_const ? *steps_const : std::vector<int64_t>(begin->size(), 1);
  if (end->size() != begin->size() || axes.size() != begin->size() || steps.size() != begin->size()) {
    ctx.Fail(fmt::format("begin [{}], end [{}], axes [{}] and strides [{}] must have the same length",
                         fmt::join(*begin, ", "), fmt::join(*end, ", "), fmt::join(axes, ", "),
                         fmt::join(steps, ", ")));
  }
  std::vector<int64_t> dims = x.dims();
  std::set<int64_t> seen;
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = infer::Axis(ctx, axes[i], x.rank(), "axes");
    if (!seen.insert(axis).second) ctx.Fail(fmt::format("axes [{}] repeats axis {}", fmt::join(axes, ", "), axes[i]));
    if (steps[i] == 0) ctx.Fail(fmt::format("strides [{}] contains 0", fmt::join(steps, ", ")));
    if (dims[axis] != kUnknown) dims[axis] = SliceLength(dims[axis], (*begin)[i], (*end)[i], steps[i]);
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

// x.shape[:axis] + indices.shape[batch_dims:] + x.shape[axis+1:]; the first
// batch_dims dims of x and indices must agree.
void InferGather(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  if (x.unknown_rank() || indices.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  const int64_t axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "axis"), x.rank(), "attribute 'axis'");
  int64_t batch_dims = infer::Attr<int64_t>(ctx, "batch_dims");
  if (batch_dims < 0) batch_dims += static_cast<int64_t>(indices.rank());
  if (batch_dims < 0 || batch_dims > axis || batch_dims > static_cast<int64_t>(indices.rank())) {
    ctx.Fail(fmt::format("attribute 'batch_dims' = {} must lie in [0, min(axis {}, rank of indices {})]",
                         infer::Attr<int64_t>(ctx, "batch_dims"), axis, indices.rank()));
  }
  std::vector<int64_t> dims(x.dims().begin(), x.dims().begin() + axis);
  for (int64_t i = 0; i < batch_dims; ++i) {
    dims[i] = infer::MergeDim(ctx, dims[i], indices.dim(i), fmt::format("batch dim {} of x and indices", i));
  }
  dims.insert(dims.end(), indices.dims().begin() + batch_dims, indices.dims().end());
  dims.insert(dims.end(), x.dims().begin() + axis + 1, x.dims().end());
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

}  // namespace

void RegisterSliceOps(OpRegistry& registry) {
  registry.Register(OpSchema("ConcatD")
                        .DynamicInput("x")
                        .Output("y")
                        .RequiredAttr("concat_dim", AttrType::kInt)
                        .RequiredAttr("N", AttrType::kInt)
                        .TypeConstraint("T", types::All())
                        .Infer(InferConcat)
                        .InferSymbolic(symbolic::Concat)
                        .Doc("Concatenates the N inputs along concat_dim."));
  registry.Register(OpSchema("SplitVD")
                        .Input("x")
                        .OptionalInput("size_splits", "TIndex")
                        .DynamicOutput("y")
                        .RequiredAttr("size_splits", AttrType::kInts)
                        .RequiredAttr("split_dim", AttrType::kInt)
                        .RequiredAttr("num_split", AttrType::kInt)
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferSplit)
                        .InferSymbolic(symbolic::Split)
                        .Doc("Splits x along split_dim into pieces of size_splits (one -1 takes the rest). The "
                             "optional input size_splits (ONNX's run-time split) replaces the attribute."));
  registry.Register(OpSchema("StridedSliceV2")
                        .Input("x")
                        .Input("begin", "TIndex")
                        .Input("end", "TIndex")
                        .OptionalInput("axes", "TIndex")
                        .OptionalInput("strides", "TIndex")
                        .Output("y")
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferStridedSlice)
                        .InferSymbolic(symbolic::Slice)
                        .Doc("ONNX Slice: negative positions count from the end, out-of-range ones clamp."));
  registry.Register(OpSchema("GatherV2D")
                        .Input("x")
                        .Input("indices", "TIndex")
                        .Output("y")
                        .Attr("axis", int64_t{0})
                        .Attr("batch_dims", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferGather)
                        .InferSymbolic(symbolic::Gather)
                        .Doc("ONNX Gather along axis; negative indices wrap."));
}

}  // namespace ge
