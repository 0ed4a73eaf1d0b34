// Helpers for the inference functions of the built-in schemas: attribute access
// with schema defaults, and the shape utilities turned into InferContext
// failures that name the node.
#pragma once

#include <concepts>

#include <array>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "graph/op_schema.h"

namespace ge::infer {

// The node's attribute, or the schema default when the node lacks it (so
// inference works before NormalizeAttrs). Fails when neither exists.
const AttrValue& AttrOrDefault(InferContext& ctx, const std::string& name);

template <typename T>
const T& Attr(InferContext& ctx, const std::string& name) {
  const AttrValue& value = AttrOrDefault(ctx, name);
  if (const T* typed = std::get_if<T>(&value)) return *typed;
  ctx.Fail("attribute '" + name + "' must be " + std::string(AttrTypeName(TypeOf(AttrValue(T{})))) + " but is " +
           std::string(AttrTypeName(TypeOf(value))));
}

// Runs fn; a ge::Error it throws becomes a failure naming the node, with the
// message prefixed by `context` (when not empty).
template <typename Fn>
auto Guarded(InferContext& ctx, const std::string& context, Fn&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const Error& e) {
    ctx.Fail(context.empty() ? std::string(e.what()) : context + ": " + e.what());
  }
}

// SoftmaxV2 and its kin (LogSoftmaxV2, Hardmax): attribute "axes" lists
// distinct axes valid for x's rank; y has x's dtype and shape.
void InferAxesNormalization(InferContext& ctx);

// NormalizeAxis that fails naming the attribute (`what`).
int64_t Axis(InferContext& ctx, int64_t axis, size_t rank, const std::string& what);
// BroadcastShapes that fails naming the node.
Shape Broadcast(InferContext& ctx, const Shape& a, const Shape& b);
// Two dims that must be equal (an unknown one takes the other); fails naming `what`.
int64_t MergeDim(InferContext& ctx, int64_t a, int64_t b, const std::string& what);
// The same with `what` made only on failure: for the schemas a dynamic
// model infers at every run (MergeDim(ctx, a, b, [&] { return ...; })).
template <typename Describe>
  requires std::invocable<Describe>
int64_t MergeDim(InferContext& ctx, int64_t a, int64_t b, Describe&& what) {
  if (a == Shape::kUnknownDim) return b;
  if (b != Shape::kUnknownDim && a != b) return MergeDim(ctx, a, b, std::string(what()));
  return a;
}
// Fails unless shape has unknown rank or exactly `rank` dims.
void RequireRank(InferContext& ctx, const Shape& shape, size_t rank, const std::string& what);
// The shape when its rank is known, else `rank` unknown dims.
Shape WithRank(const Shape& shape, size_t rank);
// More dims than any real tensor has (the ONNX import's guards assume the
// same): a rank read from a dim, such as the length of a shape input, can be
// anything up to 2^63 - 1.
inline constexpr int64_t kMaxRank = 1024;
// `rank` unknown dims, the rank being read from a dim (a shape input's
// length); fails naming `what` beyond kMaxRank.
Shape UnknownDims(InferContext& ctx, int64_t rank, const std::string& what);
// Contents of a constant integer input; nullopt when the input is absent or not constant.
std::optional<std::vector<int64_t>> ConstantInts(InferContext& ctx, size_t input);
// Product of dims [begin, end); kUnknownDim when any of them is unknown.
// Fails the node when the product does not fit int64.
int64_t DimProduct(InferContext& ctx, const Shape& shape, size_t begin, size_t end);
// Dims, attributes and constant inputs come from model files and may hold any
// int64, so the output dims computed from them are checked: these fail the
// node with "<what> does not fit int64: <operands>" where the arithmetic
// would wrap (undefined behaviour) or the conversion would be undefined.
//
// a * b of dims and non-negative factors (block sizes, multiples, groups);
// kUnknownDim when either is unknown.
int64_t CheckedDimMul(InferContext& ctx, int64_t a, int64_t b, const std::string& what);
// a + b of a known dim and a length or offset of either sign (negative pads
// crop). Unknown dims are the caller's to handle: -1 is also a valid offset.
int64_t CheckedDimAdd(InferContext& ctx, int64_t a, int64_t b, const std::string& what);
template <typename Describe>
  requires std::invocable<Describe>
int64_t CheckedDimAdd(InferContext& ctx, int64_t a, int64_t b, Describe&& what) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return CheckedDimAdd(ctx, a, b, std::string(what()));
  return sum;
}
// A length computed in floating point (scales, Range bounds), already rounded
// by the caller, as int64 (truncating); fails naming `what` when it is nan or
// beyond int64.
int64_t CheckedDimFromDouble(InferContext& ctx, double value, const std::string& what);

// The data_format attribute; only NCHW is supported in this release.
void RequireNCHW(InferContext& ctx);
// H and W of a 4-element NCHW window attribute (strides, dilations, ksize),
// whose N and C entries must be 1.
std::array<int64_t, 2> SpatialPair(InferContext& ctx, const std::string& name);
// The 4-element pads attribute [top, bottom, left, right].
std::array<int64_t, 4> Pads(InferContext& ctx);

// The position of string attribute `attr` among `valid`; fails naming the
// attribute, its value and the valid choices.
size_t Choice(InferContext& ctx, const std::string& attr, std::initializer_list<std::string_view> valid);

}  // namespace ge::infer
