#include "graph/ops/infer_helpers.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "graph/shape_inference_utils.h"

namespace ge::infer {

const AttrValue& AttrOrDefault(InferContext& ctx, const std::string& name) {
  if (const AttrValue* value = ctx.attrs().Find(name)) return *value;
  const OpSchema* schema = OpRegistry::Global().Find(ctx.node().op_type());
  const AttrSpec* spec = schema == nullptr ? nullptr : schema->FindAttr(name);
  if (spec == nullptr || spec->required) ctx.Fail(fmt::format("required attribute '{}' is missing", name));
  return spec->default_value;
}

int64_t Axis(InferContext& ctx, int64_t axis, size_t rank, const std::string& what) {
  return Guarded(ctx, what, [&] { return NormalizeAxis(axis, rank); });
}

Shape Broadcast(InferContext& ctx, const Shape& a, const Shape& b) {
  return Guarded(ctx, "", [&] { return BroadcastShapes(a, b); });
}

int64_t MergeDim(InferContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (a == Shape::kUnknownDim) return b;
  if (b != Shape::kUnknownDim && a != b) ctx.Fail(fmt::format("{} must match: {} vs {}", what, a, b));
  return a;
}

void RequireRank(InferContext& ctx, const Shape& shape, size_t rank, const std::string& what) {
  if (!shape.unknown_rank() && shape.rank() != rank) {
    ctx.Fail(fmt::format("{} must have rank {} but has shape {}", what, rank, shape.ToString()));
  }
}

Shape WithRank(const Shape& shape, size_t rank) {
  if (!shape.unknown_rank()) return shape;
  return Shape(std::vector<int64_t>(rank, Shape::kUnknownDim));
}

Shape UnknownDims(InferContext& ctx, int64_t rank, const std::string& what) {
  if (rank < 0 || rank > kMaxRank) {
    ctx.Fail(fmt::format("{} gives a rank of {}; at most {} dims are supported", what, rank, kMaxRank));
  }
  return Shape(std::vector<int64_t>(static_cast<size_t>(rank), Shape::kUnknownDim));
}

std::optional<std::vector<int64_t>> ConstantInts(InferContext& ctx, size_t input) {
  const Tensor* tensor = ctx.input_constant(input);
  if (tensor == nullptr) return std::nullopt;
  return Guarded(ctx, fmt::format("constant input {}", input), [&] { return tensor->ToInt64Vector(); });
}

int64_t DimProduct(InferContext& ctx, const Shape& shape, size_t begin, size_t end) {
  int64_t product = 1;
  for (size_t i = begin; i < end; ++i) {
    if (shape.dim(i) == Shape::kUnknownDim) return Shape::kUnknownDim;
  }
  for (size_t i = begin; i < end; ++i) {
    if (__builtin_mul_overflow(product, shape.dim(i), &product)) {
      ctx.Fail(fmt::format("the product of dims {} to {} of {} does not fit int64", begin, end - 1, shape.ToString()));
    }
  }
  return product;
}

int64_t CheckedDimMul(InferContext& ctx, int64_t a, int64_t b, const std::string& what) {
  if (a == Shape::kUnknownDim || b == Shape::kUnknownDim) return Shape::kUnknownDim;
  int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) ctx.Fail(fmt::format("{} does not fit int64: {} * {}", what, a, b));
  return product;
}

int64_t CheckedDimAdd(InferContext& ctx, int64_t a, int64_t b, const std::string& what) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) ctx.Fail(fmt::format("{} does not fit int64: {} + {}", what, a, b));
  return sum;
}

int64_t CheckedDimFromDouble(InferContext& ctx, double value, const std::string& what) {
  // [-2^63, 2^63) is exactly what truncates into int64; nan fails both tests.
  if (!(value >= -0x1p63 && value < 0x1p63)) ctx.Fail(fmt::format("{} does not fit int64: {}", what, value));
  return static_cast<int64_t>(value);
}

size_t Choice(InferContext& ctx, const std::string& attr, std::initializer_list<std::string_view> valid) {
  const std::string& value = Attr<std::string>(ctx, attr);
  const auto* found = std::find(valid.begin(), valid.end(), value);
  if (found == valid.end()) ctx.Fail(fmt::format("attribute '{}' is '{}'; valid: {}", attr, value, fmt::join(valid, ", ")));
  return static_cast<size_t>(found - valid.begin());
}

void RequireNCHW(InferContext& ctx) {
  const std::string& format = Attr<std::string>(ctx, "data_format");
  if (format != "NCHW") ctx.Fail(fmt::format("data_format '{}' is not supported (valid: \"NCHW\")", format));
}

std::array<int64_t, 2> SpatialPair(InferContext& ctx, const std::string& name) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, name);
  if (values.size() != 4 || values[0] != 1 || values[1] != 1) {
    ctx.Fail(fmt::format("attribute '{}' must be [1, 1, h, w] in NCHW order, got [{}]", name, fmt::join(values, ", ")));
  }
  return {values[2], values[3]};
}

std::array<int64_t, 4> Pads(InferContext& ctx) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, "pads");
  if (values.size() != 4) {
    ctx.Fail(fmt::format("attribute 'pads' must have 4 values [top, bottom, left, right], got [{}]",
                         fmt::join(values, ", ")));
  }
  for (int64_t pad : values) {
    if (pad < 0) ctx.Fail(fmt::format("attribute 'pads' must not be negative, got [{}]", fmt::join(values, ", ")));
  }
  return {values[0], values[1], values[2], values[3]};
}

void InferAxesNormalization(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto& axes = Attr<std::vector<int64_t>>(ctx, "axes");
  if (axes.empty()) ctx.Fail("attribute 'axes' must list at least one axis");
  if (!x.unknown_rank()) {
    std::set<int64_t> seen;
    for (int64_t axis : axes) {
      if (!seen.insert(Axis(ctx, axis, x.rank(), "attribute 'axes'")).second) {
        ctx.Fail(fmt::format("attribute 'axes' [{}] repeats axis {}", fmt::join(axes, ", "), axis));
      }
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), x);
}

}  // namespace ge::infer
