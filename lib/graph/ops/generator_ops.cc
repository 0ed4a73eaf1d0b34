// Ops that make a tensor from scalars or a shape rather than from the
// elements of an input: Fill, Range, OneHot, EyeLike, Size. Output shapes
// that depend on input values (Fill's dims, Range's bounds, OneHot's depth)
// are exact when those inputs are constant and unknown otherwise.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "graph/half_float_bits.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// Constant input i, checked to hold one element; nullptr when it is not constant.
const Tensor* ConstantElement(InferContext& ctx, size_t i, const char* what) {
  const Tensor* tensor = ctx.input_constant(i);
  if (tensor != nullptr && tensor->num_elements() != 1) {
    ctx.Fail(fmt::format("input '{}' must hold one element, got shape {}", what, tensor->shape().ToString()));
  }
  return tensor;
}

// The element of a one-element tensor of an integer dtype, exactly.
int64_t IntElement(InferContext& ctx, const Tensor& tensor, const char* what) {
  return infer::Guarded(ctx, what, [&] { return tensor.ToInt64Vector(); })[0];
}

// The element of a one-element tensor of any numeric dtype as a double.
double ScalarElement(InferContext& ctx, const Tensor& tensor, const char* what) {
  switch (tensor.dtype()) {
    case DataType::kFloat: return *tensor.data_as<float>();
    case DataType::kDouble: return *tensor.data_as<double>();
    case DataType::kFloat16: return static_cast<double>(*tensor.data_as<_Float16>());
    case DataType::kBFloat16: return BFloat16BitsToFloat(*tensor.data_as<uint16_t>());
    default: return static_cast<double>(IntElement(ctx, tensor, what));
  }
}

void InferFill(InferContext& ctx) {
  const Shape& value = ctx.input_shape(1);
  if (!value.unknown_rank() && value.NumElements() != 1 && value.NumElements() != kUnknown) {
    ctx.Fail(fmt::format("value must hold one element, got shape {}", value.ToString()));
  }
  Shape out = Shape::UnknownRank();
  if (auto dims = infer::ConstantInts(ctx, 0)) {
    for (int64_t d : *dims) {
      if (d < 0) ctx.Fail(fmt::format("dims [{}] has a negative entry", fmt::join(*dims, ", ")));
    }
    out = Shape(std::move(*dims));
  } else if (const Shape& dims_shape = ctx.input_shape(0); !dims_shape.unknown_rank() && dims_shape.rank() == 1 &&
                                                            dims_shape.dim(0) != kUnknown) {
    out = infer::UnknownDims(ctx, dims_shape.dim(0), fmt::format("the length of dims {}", dims_shape.ToString()));
  }
  ctx.set_output(0, ctx.input_dtype(1), std::move(out));
}

// max(ceil((limit - start) / delta), 0) elements, for floats in double.
int64_t FloatRangeLength(InferContext& ctx, double start, double limit, double delta) {
  if (delta == 0) ctx.Fail("delta is 0");
  // std::max keeps a nan (inf - inf, inf / inf) for CheckedDimFromDouble to refuse.
  const double length = std::max(std::ceil((limit - start) / delta), 0.0);
  return infer::CheckedDimFromDouble(
      ctx, length, fmt::format("the length of the range from {} to {} by {}", start, limit, delta));
}

// The same for integer bounds, exactly: limit - start may pass int64 (its
// magnitude is taken as uint64) while the length fits.
int64_t IntegerRangeLength(InferContext& ctx, int64_t start, int64_t limit, int64_t delta) {
  if (delta == 0) ctx.Fail("delta is 0");
  if (limit == start || (limit > start) != (delta > 0)) return 0;
  const auto u_start = static_cast<uint64_t>(start), u_limit = static_cast<uint64_t>(limit);
  const uint64_t span = limit > start ? u_limit - u_start : u_start - u_limit;
  const uint64_t step = delta > 0 ? static_cast<uint64_t>(delta) : 0 - static_cast<uint64_t>(delta);
  const uint64_t length = (span - 1) / step + 1;
  if (length > uint64_t{std::numeric_limits<int64_t>::max()}) {
    ctx.Fail(fmt::format("the length of the range from {} to {} by {} does not fit int64: {}", start, limit, delta,
                         length));
  }
  return static_cast<int64_t>(length);
}

void InferRange(InferContext& ctx) {
  const DataType dtype = ctx.input_dtype(0);
  int64_t length = kUnknown;
  const Tensor* start = ConstantElement(ctx, 0, "start");
  const Tensor* limit = ConstantElement(ctx, 1, "limit");
  const Tensor* delta = ConstantElement(ctx, 2, "delta");
  if (start && limit && delta) {
    const bool is_float = dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kFloat16 ||
                          dtype == DataType::kBFloat16;
    length = is_float ? FloatRangeLength(ctx, ScalarElement(ctx, *start, "start"), ScalarElement(ctx, *limit, "limit"),
                                         ScalarElement(ctx, *delta, "delta"))
                      : IntegerRangeLength(ctx, IntElement(ctx, *start, "start"), IntElement(ctx, *limit, "limit"),
                                           IntElement(ctx, *delta, "delta"));
  }
  ctx.set_output(0, dtype, Shape({length}));
}

// indices' shape with a depth-long axis inserted at `axis` (of the output).
void InferOneHot(InferContext& ctx) {
  const Shape& indices = ctx.input_shape(0);
  int64_t depth = kUnknown;
  if (const Tensor* tensor = ConstantElement(ctx, 1, "depth")) {
    const double value = ScalarElement(ctx, *tensor, "depth");
    depth = infer::CheckedDimFromDouble(ctx, value, "depth");
    if (depth < 1) ctx.Fail(fmt::format("depth {} must be positive", value));
  }
  const DataType dtype = ctx.input_dtype(2);
  if (indices.unknown_rank()) {
    ctx.set_output(0, dtype, Shape::UnknownRank());
    return;
  }
  const int64_t axis = infer::Axis(ctx, infer::Attr<int64_t>(ctx, "axis"), indices.rank() + 1, "attribute 'axis'");
  std::vector<int64_t> dims = indices.dims();
  dims.insert(dims.begin() + axis, depth);
  ctx.set_output(0, dtype, Shape(std::move(dims)));
}

void InferEyeLike(InferContext& ctx) {
  const Shape x = infer::WithRank(ctx.input_shape(0), 2);
  infer::RequireRank(ctx, x, 2, "x");
  ctx.set_output(0, static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype")), x);
}

void InferSize(InferContext& ctx) {
  ctx.set_output(0, static_cast<DataType>(infer::Attr<int64_t>(ctx, "dtype")), Shape{});
}

}  // namespace

void RegisterGeneratorOps(OpRegistry& registry) {
  registry.Register(OpSchema("Fill")
                        .Input("dims", "TIndex")
                        .Input("value")
                        .Output("y")
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferFill)
                        .InferSymbolic(symbolic::Fill)
                        .Doc("A tensor of shape dims filled with the one element of value."));
  registry.Register(OpSchema("Range")
                        .Input("start")
                        .Input("limit")
                        .Input("delta")
                        .Output("y")
                        .TypeConstraint("T", {DataType::kFloat, DataType::kDouble, DataType::kFloat16,
                                              DataType::kBFloat16, DataType::kInt16, DataType::kInt32,
                                              DataType::kInt64})
                        .Infer(InferRange)
                        .InferSymbolic(symbolic::Range)
                        .Doc("start, start + delta, ... while before limit: max(ceil((limit - start) / delta), 0) "
                             "elements."));
  registry.Register(OpSchema("OneHot")
                        .Input("x", "TIndices")
                        .Input("depth", "TDepth")
                        .Input("on_value")
                        .Input("off_value")
                        .Output("y")
                        .Attr("axis", int64_t{-1})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndices", types::Numeric())
                        .TypeConstraint("TDepth", types::Numeric())
                        .Infer(InferOneHot)
                        .Doc("y has a new depth-long axis at axis: on_value where it equals the index (negative "
                             "indices count from depth), off_value elsewhere."));
  registry.Register(OpSchema("EyeLike")
                        .Input("x")
                        .Output("y", "TOut")
                        .RequiredAttr("dtype", AttrType::kInt)
                        .Attr("k", int64_t{0})
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TOut", types::All())
                        .Infer(InferEyeLike)
                        .Doc("2-D tensor shaped like x with ones on diagonal k (j - i = k), zeros elsewhere."));
  registry.Register(OpSchema("Size")
                        .Input("x")
                        .Output("y", "TOut")
                        .Attr("dtype", static_cast<int64_t>(DataType::kInt64))
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TOut", types::IndexTypes())
                        .Infer(InferSize)
                        .Doc("The number of elements of x, a scalar."));
}

}  // namespace ge
