// Ops that only rearrange or describe the shape: Identity, Reshape, Flatten,
// Squeeze, Unsqueeze, TransposeD, Shape.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

void InferIdentity(InferContext& ctx) { ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0)); }

// ONNX Reshape: 0 copies the input dim at the same index (unless allowzero,
// then it is a real 0), one -1 is inferred from the element count.
Shape ReshapeTarget(InferContext& ctx, const Shape& x, const std::vector<int64_t>& target, bool allowzero) {
  std::vector<int64_t> dims(target.size());
  int64_t inferred = -1;  // index of the -1 entry
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t d = target[i];
    if (d < -1) ctx.Fail(fmt::format("shape [{}] has invalid entry {}", fmt::join(target, ", "), d));
    if (d == -1) {
      if (inferred >= 0) ctx.Fail(fmt::format("shape [{}] has more than one -1", fmt::join(target, ", ")));
      inferred = static_cast<int64_t>(i);
      dims[i] = kUnknown;
    } else if (d == 0 && !allowzero) {
      if (x.unknown_rank()) {
        dims[i] = kUnknown;
      } else if (i >= x.rank()) {
        ctx.Fail(fmt::format("shape [{}] copies dim {} (a 0 entry) but x {} has rank {}", fmt::join(target, ", "), i,
                             x.ToString(), x.rank()));
      } else {
        dims[i] = x.dim(i);
      }
    } else {
      dims[i] = d;
    }
  }
  if (allowzero && inferred >= 0 && std::count(target.begin(), target.end(), 0) > 0) {
    ctx.Fail(
        fmt::format("shape [{}] mixes -1 with 0 while allowzero=1, so the -1 is ambiguous", fmt::join(target, ", ")));
  }
  const int64_t total = x.NumElements();
  int64_t known_product = 1;
  bool all_known = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (static_cast<int64_t>(i) == inferred) continue;
    if (dims[i] == kUnknown) {
      all_known = false;
    } else if (__builtin_mul_overflow(known_product, dims[i], &known_product)) {
      ctx.Fail(fmt::format("shape [{}] has more elements than int64 counts", fmt::join(target, ", ")));
    }
  }
  if (total == kUnknown || !all_known) return Shape(std::move(dims));
  if (inferred >= 0) {
    if (known_product == 0 || total % known_product != 0) {
      ctx.Fail(fmt::format("cannot reshape x {} ({} elements) to [{}]", x.ToString(), total, fmt::join(target, ", ")));
    }
    dims[inferred] = total / known_product;
  } else if (known_product != total) {
    ctx.Fail(fmt::format("cannot reshape x {} ({} elements) to [{}] ({} elements)", x.ToString(), total,
                         fmt::join(target, ", "), known_product));
  }
  return Shape(std::move(dims));
}

void InferReshape(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& shape_shape = ctx.input_shape(1);
  infer::RequireRank(ctx, shape_shape, 1, "shape");
  Shape out = Shape::UnknownRank();
  if (auto target = infer::ConstantInts(ctx, 1)) {
    out = ReshapeTarget(ctx, x, *target, infer::Attr<int64_t>(ctx, "allowzero") != 0);
  } else if (!shape_shape.unknown_rank() && shape_shape.dim(0) != kUnknown) {
    out = infer::UnknownDims(ctx, shape_shape.dim(0), fmt::format("the length of shape {}", shape_shape.ToString()));
  }
  ctx.set_output(0, ctx.input_dtype(0), std::move(out));
}

// [prod(d < axis), prod(d >= axis)], axis in [-rank, rank].
void InferFlatten(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape({kUnknown, kUnknown}));
    return;
  }
  const int64_t attr = infer::Attr<int64_t>(ctx, "axis");
  // Flatten also accepts axis == rank (everything in the first dim).
  const int64_t axis =
      attr == static_cast<int64_t>(x.rank()) ? attr : infer::Axis(ctx, attr, x.rank(), "attribute 'axis'");
  ctx.set_output(0, ctx.input_dtype(0), Shape({infer::DimProduct(ctx, x, 0, axis), infer::DimProduct(ctx, x, axis, x.rank())}));
}

// Normalized, duplicate-free axes; `rank` is what they index.
std::set<int64_t> AxisSet(InferContext& ctx, const std::vector<int64_t>& axes, size_t rank, const char* attr) {
  std::set<int64_t> result;
  for (int64_t axis : axes) {
    if (!result.insert(infer::Axis(ctx, axis, rank, fmt::format("attribute '{}'", attr))).second) {
      ctx.Fail(fmt::format("attribute '{}' [{}] repeats axis {}", attr, fmt::join(axes, ", "), axis));
    }
  }
  return result;
}

// The axes of Squeeze/Unsqueeze: the optional int input (ONNX opset 13's
// run-time axes) when present, else the attribute. nullopt when the input is
// not constant; then `count` is its length when known.
std::optional<std::vector<int64_t>> SqueezeAxes(InferContext& ctx, const char* attr, std::optional<size_t>& count) {
  if (!ctx.has_input(1)) {
    const auto& axes = infer::Attr<std::vector<int64_t>>(ctx, attr);
    count = axes.size();
    return axes;
  }
  if (auto axes = infer::ConstantInts(ctx, 1)) {
    count = axes->size();
    return axes;
  }
  const Shape& shape = ctx.input_shape(1);
  infer::RequireRank(ctx, shape, 1, "axes");
  if (!shape.unknown_rank() && shape.dim(0) != kUnknown) count = static_cast<size_t>(shape.dim(0));
  return std::nullopt;
}

void InferSqueeze(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  std::optional<size_t> count;
  const auto axes = SqueezeAxes(ctx, "axis", count);
  if (x.unknown_rank() || (!axes && (!count || *count == 0))) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  if (!axes) {
    // Which axes go is known at run time; how many is known now.
    if (*count > x.rank()) ctx.Fail(fmt::format("{} axes to squeeze but x {} has rank {}", *count, x.ToString(), x.rank()));
    ctx.set_output(0, ctx.input_dtype(0), Shape(std::vector<int64_t>(x.rank() - *count, kUnknown)));
    return;
  }
  std::vector<int64_t> dims;
  if (axes->empty()) {
    // Which dims are 1 decides the output rank: unknown dims leave it open.
    if (std::count(x.dims().begin(), x.dims().end(), kUnknown) > 0) {
      ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
      return;
    }
    std::copy_if(x.dims().begin(), x.dims().end(), std::back_inserter(dims), [](int64_t d) { return d != 1; });
  } else {
    const std::set<int64_t> squeezed = AxisSet(ctx, *axes, x.rank(), "axis");
    for (size_t i = 0; i < x.rank(); ++i) {
      if (squeezed.count(static_cast<int64_t>(i)) == 0) {
        dims.push_back(x.dim(i));
      } else if (x.dim(i) != 1 && x.dim(i) != kUnknown) {
        ctx.Fail(fmt::format("cannot squeeze axis {} of x {}: its size is {}, not 1", i, x.ToString(), x.dim(i)));
      }
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

// axes index the output, whose rank is rank(x) + len(axes).
void InferUnsqueeze(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  std::optional<size_t> count;
  const auto axes = SqueezeAxes(ctx, "axes", count);
  if (x.unknown_rank() || !count) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  const size_t out_rank = x.rank() + *count;
  if (!axes) {
    ctx.set_output(0, ctx.input_dtype(0),
                   infer::UnknownDims(ctx, static_cast<int64_t>(out_rank), "the rank of x plus the length of axes"));
    return;
  }
  const std::set<int64_t> inserted = AxisSet(ctx, *axes, out_rank, "axes");
  std::vector<int64_t> dims;
  size_t next = 0;
  for (size_t i = 0; i < out_rank; ++i) {
    dims.push_back(inserted.count(static_cast<int64_t>(i)) != 0 ? 1 : x.dim(next++));
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

void InferTranspose(InferContext& ctx) {
  const auto& perm = infer::Attr<std::vector<int64_t>>(ctx, "perm");
  const Shape x = infer::WithRank(ctx.input_shape(0), perm.size());
  std::vector<bool> used(perm.size(), false);
  bool valid = x.rank() == perm.size();
  for (int64_t p : perm) {
    valid = valid && p >= 0 && p < static_cast<int64_t>(perm.size()) && !used[p];
    if (valid) used[p] = true;
  }
  if (!valid) {
    ctx.Fail(fmt::format("attribute 'perm' [{}] is not a permutation of the {} axes of x {}", fmt::join(perm, ", "),
                         x.rank(), x.ToString()));
  }
  std::vector<int64_t> dims;
  for (int64_t p : perm) dims.push_back(x.dim(p));
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

void InferShapeOp(InferContext& ctx) {
  const auto dtype = static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype"));
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    ctx.Fail(fmt::format("attribute 'dtype' = {} is not supported (valid: {} (int32), {} (int64))",
                         static_cast<int>(dtype), static_cast<int>(DataType::kInt32),
                         static_cast<int>(DataType::kInt64)));
  }
  const Shape& x = ctx.input_shape(0);
  ctx.set_output(0, dtype, Shape({x.unknown_rank() ? kUnknown : static_cast<int64_t>(x.rank())}));
}

OpSchema UnaryShapeSchema(const char* op_type) {
  OpSchema schema(op_type);
  schema.Input("x").Output("y").TypeConstraint("T", types::All());
  return schema;
}

}  // namespace

void RegisterShapeOps(OpRegistry& registry) {
  registry.Register(OpSchema("Identity")
                        .Input("x")
                        .Output("y")
                        .TypeConstraint("T", types::AnyValue())
                        .Infer(InferIdentity)
                        .InferSymbolic(symbolic::Identity)
                        .Doc("y = x (a view at run time; a sequence or optional is shared)."));
  registry.Register(OpSchema("Reshape")
                        .Input("x")
                        .Input("shape", "TShape")
                        .Output("y")
                        .Attr("allowzero", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TShape", types::IndexTypes())
                        .Infer(InferReshape)
                        .InferSymbolic(symbolic::Reshape)
                        .Doc("ONNX Reshape: 0 copies the input dim unless allowzero, one -1 is inferred (a view)."));
  registry.Register(UnaryShapeSchema("Flatten")
                        .Attr("axis", int64_t{1})
                        .Infer(InferFlatten)
                        .Doc("[prod(d < axis), prod(d >= axis)] (a view)."));
  registry.Register(UnaryShapeSchema("Squeeze")
                        .OptionalInput("axes", "TIndex")
                        .Attr("axis", std::vector<int64_t>{})
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferSqueeze)
                        .InferSymbolic(symbolic::Squeeze)
                        .Doc("Removes the listed size-1 axes, or all of them when the list is empty (a view). The "
                             "optional input axes (ONNX's run-time axes) replaces the attribute."));
  registry.Register(UnaryShapeSchema("Unsqueeze")
                        .OptionalInput("axes", "TIndex")
                        .RequiredAttr("axes", AttrType::kInts)
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferUnsqueeze)
                        .InferSymbolic(symbolic::Unsqueeze)
                        .Doc("Inserts size-1 axes at the listed positions of the output (a view). The optional "
                             "input axes (ONNX's run-time axes) replaces the attribute."));
  registry.Register(UnaryShapeSchema("TransposeD")
                        .RequiredAttr("perm", AttrType::kInts)
                        .Infer(InferTranspose)
                        .InferSymbolic(symbolic::Transpose)
                        .Doc("Permutes the axes: output axis i is input axis perm[i]."));
  registry.Register(OpSchema("Shape")
                        .Input("x")
                        .Output("y", "TOut")
                        .Attr("dtype", static_cast<int64_t>(DataType::kInt64))
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TOut", types::IndexTypes())
                        .Infer(InferShapeOp)
                        .InferSymbolic(symbolic::ShapeOf)
                        .Doc("The shape of x as a 1-D tensor of DataType dtype (int32 or int64)."));
}

}  // namespace ge
