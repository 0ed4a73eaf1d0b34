// Ops that make a tensor from scalars or a shape rather than from the
// elements of an input: Fill, Range, OneHot, EyeLike, Size. Output shapes
// that depend on input values (Fill's dims, Range's bounds, OneHot's depth)
// are exact when those inputs are constant and unknown otherwise.
#include <fmt/format.h>

#include <cmath>
#include <cstring>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// The single element of constant input i as a double (any numeric dtype),
// or nullopt when the input is not constant.
std::optional<double> ConstantScalar(InferContext& ctx, size_t i, const char* what) {
  const Tensor* tensor = ctx.input_constant(i);
  if (tensor == nullptr) return std::nullopt;
  if (tensor->num_elements() != 1) {
    ctx.Fail(fmt::format("input '{}' must hold one element, got shape {}", what, tensor->shape().ToString()));
  }
  switch (tensor->dtype()) {
    case DataType::kFloat: return *tensor->data_as<float>();
    case DataType::kDouble: return *tensor->data_as<double>();
    case DataType::kFloat16: return static_cast<double>(*tensor->data_as<_Float16>());
    case DataType::kBFloat16: {
      const uint32_t bits = uint32_t{*tensor->data_as<uint16_t>()} << 16;
      float value;
      std::memcpy(&value, &bits, sizeof value);
      return value;
    }
    default: return static_cast<double>(infer::Guarded(ctx, what, [&] { return tensor->ToInt64Vector(); })[0]);
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
    out = Shape(std::vector<int64_t>(dims_shape.dim(0), kUnknown));
  }
  ctx.set_output(0, ctx.input_dtype(1), std::move(out));
}

// max(ceil((limit - start) / delta), 0) elements; integer bounds divide exactly.
void InferRange(InferContext& ctx) {
  const DataType dtype = ctx.input_dtype(0);
  int64_t length = kUnknown;
  const auto start = ConstantScalar(ctx, 0, "start");
  const auto limit = ConstantScalar(ctx, 1, "limit");
  const auto delta = ConstantScalar(ctx, 2, "delta");
  if (start && limit && delta) {
    if (*delta == 0) ctx.Fail("delta is 0");
    const bool is_float = dtype == DataType::kFloat || dtype == DataType::kDouble || dtype == DataType::kFloat16 ||
                          dtype == DataType::kBFloat16;
    if (is_float) {
      length = static_cast<int64_t>(std::ceil((*limit - *start) / *delta));
    } else {
      const auto span = static_cast<int64_t>(*limit - *start);
      const auto step = static_cast<int64_t>(*delta);
      // Ceiling division for either sign of step.
      length = span / step + ((span % step != 0 && ((span > 0) == (step > 0))) ? 1 : 0);
    }
    length = std::max<int64_t>(length, 0);
  }
  ctx.set_output(0, dtype, Shape({length}));
}

// indices' shape with a depth-long axis inserted at `axis` (of the output).
void InferOneHot(InferContext& ctx) {
  const Shape& indices = ctx.input_shape(0);
  int64_t depth = kUnknown;
  if (auto value = ConstantScalar(ctx, 1, "depth")) {
    depth = static_cast<int64_t>(*value);
    if (depth < 1) ctx.Fail(fmt::format("depth {} must be positive", *value));
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
