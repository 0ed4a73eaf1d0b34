// Ops that address elements by computed indices or produce indices:
// GatherElements, GatherNd, ScatterElements, ScatterNdUpdate, TopKV2,
// ArgMaxV2, ArgMinV2, Cumsum, NonZero, ReverseSequence, Unique.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "graph/half_float_bits.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/unique.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

void RequireSameRank(InferContext& ctx, const Shape& a, const Shape& b, const char* what) {
  if (!a.unknown_rank() && !b.unknown_rank() && a.rank() != b.rank()) {
    ctx.Fail(fmt::format("{} {} and x {} must have the same rank", what, b.ToString(), a.ToString()));
  }
}

void CheckReduction(InferContext& ctx) {
  const std::string& reduction = infer::Attr<std::string>(ctx, "reduction");
  if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min") {
    ctx.Fail(fmt::format("attribute 'reduction' = '{}' is not supported (valid: none, add, mul, max, min)",
                         reduction));
  }
}

void InferGatherElements(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  RequireSameRank(ctx, x, indices, "indices");
  if (!x.unknown_rank()) infer::Axis(ctx, infer::Attr<int64_t>(ctx, "dim"), x.rank(), "attribute 'dim'");
  ctx.set_output(0, ctx.input_dtype(0), indices);
}

// indices [..., k] pick slices x[batch..., i0, ..., ik-1, :] after batch_dims
// leading dims shared by x and indices.
void InferGatherNd(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  const int64_t batch_dims = infer::Attr<int64_t>(ctx, "batch_dims");
  if (x.unknown_rank() || indices.unknown_rank() || indices.rank() == 0 || indices.dims().back() == kUnknown) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  const int64_t k = indices.dims().back();
  const auto q = static_cast<int64_t>(indices.rank());
  const auto r = static_cast<int64_t>(x.rank());
  // k is a dim and may be near INT64_MAX: compared with r - batch_dims, not added to batch_dims.
  if (batch_dims < 0 || batch_dims >= q || batch_dims >= r || k > r - batch_dims) {
    ctx.Fail(fmt::format("batch_dims {} with indices {} does not fit x {}", batch_dims, indices.ToString(),
                         x.ToString()));
  }
  std::vector<int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  for (int64_t d = 0; d < batch_dims; ++d) {
    dims[d] = infer::MergeDim(ctx, dims[d], x.dim(d), fmt::format("batch dim {} of x and indices", d));
  }
  dims.insert(dims.end(), x.dims().begin() + batch_dims + k, x.dims().end());
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

void InferScatterElements(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  RequireSameRank(ctx, x, ctx.input_shape(1), "indices");
  RequireSameRank(ctx, x, ctx.input_shape(2), "updates");
  if (!x.unknown_rank()) infer::Axis(ctx, infer::Attr<int64_t>(ctx, "axis"), x.rank(), "attribute 'axis'");
  CheckReduction(ctx);
  ctx.set_output(0, ctx.input_dtype(0), x);
}

void InferScatterNd(InferContext& ctx) {
  CheckReduction(ctx);
  ctx.set_output(0, ctx.input_dtype(0), ctx.input_shape(0));
}

// values and indices: x with dim `dim` replaced by k.
void InferTopK(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  int64_t k = kUnknown;
  if (auto value = infer::ConstantInts(ctx, 1)) {
    if (value->size() != 1 || (*value)[0] < 0) {
      ctx.Fail(fmt::format("k must be one non-negative integer, got [{}]", fmt::join(*value, ", ")));
    }
    k = (*value)[0];
  }
  Shape out = x;
  if (!x.unknown_rank()) {
    const int64_t dim = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "dim"), x.rank(), "attribute 'dim'");
    if (k != kUnknown && x.dim(dim) != kUnknown && k > x.dim(dim)) {
      ctx.Fail(fmt::format("k = {} exceeds dim {} of x {}", k, dim, x.ToString()));
    }
    out.dim(dim) = k;
  }
  ctx.set_output(0, ctx.input_dtype(0), out);
  ctx.set_output(1, DataType::kInt64, out);
}

// x without the (constant) reduced dimension.
void InferArgReduce(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto dtype = static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype"));
  if (dtype != DataType::kInt32 && dtype != DataType::kInt64) {
    ctx.Fail(fmt::format("attribute 'dtype' = {} is not supported (valid: {} (int32), {} (int64))",
                         static_cast<int>(dtype), static_cast<int>(DataType::kInt32),
                         static_cast<int>(DataType::kInt64)));
  }
  const auto dimension = infer::ConstantInts(ctx, 1);
  if (x.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return;
  }
  if (x.rank() == 0) ctx.Fail("x must have rank >= 1");
  if (!dimension) {
    ctx.set_output(0, dtype, Shape(std::vector<int64_t>(x.rank() - 1, kUnknown)));
    return;
  }
  if (dimension->size() != 1) ctx.Fail(fmt::format("dimension must be one integer, got {}", dimension->size()));
  const int64_t axis = infer::Axis(ctx, (*dimension)[0], x.rank(), "dimension");
  if (x.dim(axis) == 0) ctx.Fail(fmt::format("cannot reduce the empty dim {} of x {}", axis, x.ToString()));
  std::vector<int64_t> dims = x.dims();
  dims.erase(dims.begin() + axis);
  ctx.set_output(0, dtype, Shape(std::move(dims)));
}

void InferCumsum(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (auto axis = infer::ConstantInts(ctx, 1); axis && !x.unknown_rank()) {
    if (axis->size() != 1) ctx.Fail(fmt::format("axis must be one integer, got {}", axis->size()));
    infer::Axis(ctx, (*axis)[0], x.rank(), "axis");
  }
  ctx.set_output(0, ctx.input_dtype(0), x);
}

// [rank(x), number of non-zero elements]; the count is known when x is constant.
void InferNonZero(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto dtype = static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype"));
  int64_t count = kUnknown;
  if (const Tensor* value = ctx.input_constant(0)) {
    const size_t element = DataTypeSize(value->dtype());
    const auto* bytes = static_cast<const uint8_t*>(value->data());
    count = 0;
    // Non-zero means any set bit, except that -0.0 is zero for the float types.
    const bool is_float = value->dtype() == DataType::kFloat || value->dtype() == DataType::kDouble ||
                          value->dtype() == DataType::kFloat16 || value->dtype() == DataType::kBFloat16;
    for (int64_t i = 0; i < value->num_elements(); ++i) {
      bool nonzero = false;
      for (size_t b = 0; b < element; ++b) {
        uint8_t byte = bytes[i * element + b];
        if (is_float && b == element - 1) byte &= 0x7F;  // little-endian: the sign is in the last byte
        nonzero = nonzero || byte != 0;
      }
      count += nonzero ? 1 : 0;
    }
  }
  const int64_t rank = x.unknown_rank() ? kUnknown : static_cast<int64_t>(x.rank());
  ctx.set_output(0, dtype, Shape({rank, count}));
}

void InferReverseSequence(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (!x.unknown_rank()) {
    const int64_t seq = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "seq_dim"), x.rank(), "attribute 'seq_dim'");
    const int64_t batch =
        infer::Axis(ctx, infer::Attr<int64_t>(ctx, "batch_dim"), x.rank(), "attribute 'batch_dim'");
    if (seq == batch) ctx.Fail("attributes 'seq_dim' and 'batch_dim' must differ");
  }
  ctx.set_output(0, ctx.input_dtype(0), x);
}

// Unique's result on a constant x, viewed as [outer, n, inner].
UniqueResult ConstantUnique(InferContext& ctx, const Tensor& x, int64_t outer, int64_t n, int64_t inner, bool sorted) {
  auto run = [&](auto typed) {
    using T = decltype(typed);
    return FindUnique(x.data_as<T>(), outer, n, inner, sorted);
  };
  switch (x.dtype()) {
    case DataType::kFloat: return run(float{});
    case DataType::kDouble: return run(double{});
    case DataType::kFloat16: return run(_Float16{});
    case DataType::kInt8: return run(int8_t{});
    case DataType::kUInt8:
    case DataType::kBool: return run(uint8_t{});
    case DataType::kInt16: return run(int16_t{});
    case DataType::kUInt16: return run(uint16_t{});
    case DataType::kInt32: return run(int32_t{});
    case DataType::kUInt32: return run(uint32_t{});
    case DataType::kInt64: return run(int64_t{});
    case DataType::kUInt64: return run(uint64_t{});
    case DataType::kBFloat16: {
      // bfloat16 is the upper half of a float32; the floats compare alike.
      std::vector<float> widened;
      for (uint16_t bits : x.values<uint16_t>()) widened.push_back(BFloat16BitsToFloat(bits));
      return FindUnique(widened.data(), outer, n, inner, sorted);
    }
    default: ctx.Fail(fmt::format("dtype {} is not supported", DataTypeName(x.dtype())));
  }
}

// y: x with the axis (or the flattened x) reduced to the m unique slices;
// indices and counts [m], inverse_indices [n]. m is known when x is constant.
void InferUnique(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto& axis_attr = infer::Attr<std::vector<int64_t>>(ctx, "axis");
  if (axis_attr.size() > 1) ctx.Fail("attribute 'axis' holds at most one axis");
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), axis_attr.empty() ? Shape({kUnknown}) : Shape::UnknownRank());
    for (size_t i = 1; i < 4; ++i) ctx.set_output(i, DataType::kInt64, Shape({kUnknown}));
    return;
  }
  const int64_t axis = axis_attr.empty() ? -1 : infer::Axis(ctx, axis_attr[0], x.rank(), "attribute 'axis'");
  const int64_t n = axis < 0 ? x.NumElements() : x.dim(axis);
  int64_t m = kUnknown;
  if (const Tensor* value = ctx.input_constant(0)) {
    const int64_t outer = axis < 0 ? 1 : infer::DimProduct(ctx, x, 0, axis);
    const int64_t inner = axis < 0 ? 1 : infer::DimProduct(ctx, x, axis + 1, x.rank());
    m = static_cast<int64_t>(ConstantUnique(ctx, *value, outer, n, inner, infer::Attr<bool>(ctx, "sorted")).first.size());
  }
  Shape y({m});
  if (axis >= 0) {
    y = x;
    y.dim(axis) = m;
  }
  ctx.set_output(0, ctx.input_dtype(0), std::move(y));
  ctx.set_output(1, DataType::kInt64, Shape({m}));
  ctx.set_output(2, DataType::kInt64, Shape({n}));
  ctx.set_output(3, DataType::kInt64, Shape({m}));
}

}  // namespace

void RegisterIndexOps(OpRegistry& registry) {
  registry.Register(OpSchema("GatherElements")
                        .Input("x")
                        .Input("indices", "TIndex")
                        .Output("y")
                        .Attr("dim", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferGatherElements)
                        .Doc("y[i] = x[i with i[dim] replaced by indices[i]]; negative indices wrap."));
  registry.Register(OpSchema("GatherNd")
                        .Input("x")
                        .Input("indices", "TIndex")
                        .Output("y")
                        .Attr("batch_dims", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferGatherNd)
                        .Doc("ONNX GatherND: the last dim of indices addresses leading dims of x after batch_dims."));
  registry.Register(OpSchema("ScatterElements")
                        .Input("data")
                        .Input("indices", "TIndex")
                        .Input("updates")
                        .Output("y")
                        .Attr("axis", int64_t{0})
                        .Attr("reduction", std::string("none"))
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferScatterElements)
                        .Doc("y = data with updates written (or combined by reduction) at indices along axis."));
  registry.Register(OpSchema("ScatterNdUpdate")
                        .Input("var")
                        .Input("indices", "TIndex")
                        .Input("updates")
                        .Output("y")
                        .Attr("reduction", std::string("none"))
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferScatterNd)
                        .Doc("ONNX ScatterND: y = var with slices addressed by indices replaced (or combined)."));
  registry.Register(OpSchema("TopKV2")
                        .Input("x")
                        .Input("k", "TIndex")
                        .Output("values")
                        .Output("indices", "TOut")
                        .Attr("sorted", true)
                        .Attr("dim", int64_t{-1})
                        .Attr("largest", true)
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .TypeConstraint("TOut", {DataType::kInt64})
                        .Infer(InferTopK)
                        .Doc("The k largest (smallest) elements along dim and their int64 indices; ties keep the "
                             "lower index first."));
  for (const char* op : {"ArgMaxV2", "ArgMinV2"}) {
    registry.Register(OpSchema(op)
                          .Input("x")
                          .Input("dimension", "TIndex")
                          .Output("y", "TOut")
                          .Attr("dtype", static_cast<int64_t>(DataType::kInt64))
                          .Attr("select_last_index", false)
                          .TypeConstraint("T", types::Numeric())
                          .TypeConstraint("TIndex", types::IndexTypes())
                          .TypeConstraint("TOut", types::IndexTypes())
                          .Infer(InferArgReduce)
                          .Doc("Index of the max (min) along dimension, which is removed; ties give the first "
                               "index, or the last with select_last_index."));
  }
  registry.Register(OpSchema("Cumsum")
                        .Input("x")
                        .Input("axis", "TIndex")
                        .Output("y")
                        .Attr("exclusive", false)
                        .Attr("reverse", false)
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferCumsum)
                        .Doc("Running sum along axis; exclusive leaves out the element itself, reverse sums from "
                             "the end."));
  registry.Register(OpSchema("NonZero")
                        .Input("x")
                        .Output("y", "TOut")
                        .Attr("dtype", static_cast<int64_t>(DataType::kInt64))
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TOut", {DataType::kInt64})
                        .Infer(InferNonZero)
                        .Doc("[rank, count] indices of the non-zero elements in row-major order."));
  registry.Register(OpSchema("Unique")
                        .Input("x")
                        .Output("y")
                        .Output("indices", "TOut")
                        .Output("inverse_indices", "TOut")
                        .Output("counts", "TOut")
                        .Attr("sorted", true)
                        .Attr("axis", std::vector<int64_t>{})
                        .TypeConstraint("T", types::Numeric())
                        .TypeConstraint("TOut", {DataType::kInt64})
                        .Infer(InferUnique)
                        .Doc("ONNX Unique: the unique elements (axis empty: of flattened x) or slices along axis, "
                             "ascending when sorted else in order of first occurrence, with first indices, inverse "
                             "indices and counts."));
  registry.Register(OpSchema("ReverseSequence")
                        .Input("x")
                        .Input("seq_lengths", "TIndex")
                        .Output("y")
                        .RequiredAttr("seq_dim", AttrType::kInt)
                        .Attr("batch_dim", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferReverseSequence)
                        .Doc("Reverses the first seq_lengths[b] elements along seq_dim of each batch b."));
}

}  // namespace ge
