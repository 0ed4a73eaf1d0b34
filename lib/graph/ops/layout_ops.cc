// Ops that lay the elements of x out anew without arithmetic: Tile, Expand,
// PadV3, DepthToSpace, SpaceToDepth, Tril, Triu. Where a shape comes from an
// input (multiples, shape, paddings) the output shape is exact when that input
// is constant and has unknown dims otherwise.
#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"
#include "graph/shape_inference_utils.h"

namespace ge {
namespace {

constexpr int64_t kUnknown = Shape::kUnknownDim;

// Length of the 1-D integer input i, when known.
std::optional<size_t> VectorLength(InferContext& ctx, size_t i, const char* what) {
  const Shape& shape = ctx.input_shape(i);
  infer::RequireRank(ctx, shape, 1, what);
  if (shape.unknown_rank() || shape.dim(0) == kUnknown) return std::nullopt;
  return static_cast<size_t>(shape.dim(0));
}

// Dim d of x times `factor` (a multiple, block_size or its square), named `factor_name` on overflow.
int64_t Scaled(InferContext& ctx, const Shape& x, size_t d, int64_t factor, const std::string& factor_name) {
  return infer::CheckedDimMul(ctx, x.dim(d), factor,
                              fmt::format("dim {} of x {} times {}", d, x.ToString(), factor_name));
}

void InferTile(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const auto multiples = infer::ConstantInts(ctx, 1);
  const std::optional<size_t> length = VectorLength(ctx, 1, "multiples");
  const std::optional<size_t> rank = x.unknown_rank() ? length : std::optional<size_t>(x.rank());
  if (!rank) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  if (length && *length != *rank) {
    ctx.Fail(fmt::format("multiples has {} entries but x {} has rank {}", *length, x.ToString(), *rank));
  }
  std::vector<int64_t> dims = infer::UnknownDims(ctx, static_cast<int64_t>(*rank), "the length of multiples").dims();
  for (size_t d = 0; multiples && d < *rank; ++d) {
    const int64_t m = (*multiples)[d];
    if (m < 0) ctx.Fail(fmt::format("multiples [{}] has a negative entry", fmt::join(*multiples, ", ")));
    if (!x.unknown_rank()) dims[d] = Scaled(ctx, x, d, m, fmt::format("multiples[{}]", d));
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

// ONNX Expand: x broadcast against `shape` (numpy rules, either side may be 1).
void InferExpand(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  Shape target = Shape::UnknownRank();
  if (auto dims = infer::ConstantInts(ctx, 1)) {
    for (int64_t d : *dims) {
      if (d < 0) ctx.Fail(fmt::format("shape [{}] has a negative entry", fmt::join(*dims, ", ")));
    }
    target = Shape(std::move(*dims));
  } else if (auto length = VectorLength(ctx, 1, "shape")) {
    target = infer::UnknownDims(ctx, static_cast<int64_t>(*length), "the length of shape");
  }
  ctx.set_output(0, ctx.input_dtype(0), infer::Broadcast(ctx, x, target));
}

// PadV3 paddings: 2 * rank entries, [b0, e0, b1, e1, ...] when
// paddings_contiguous, else [b0, b1, ..., e0, e1, ...] (ONNX's order).
// Negative entries crop.
void InferPad(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const std::string& mode = infer::Attr<std::string>(ctx, "mode");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    ctx.Fail(fmt::format("attribute 'mode' = '{}' is not supported (valid: constant, reflect, edge)", mode));
  }
  const auto paddings = infer::ConstantInts(ctx, 1);
  const std::optional<size_t> length = VectorLength(ctx, 1, "paddings");
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0),
                   length ? infer::UnknownDims(ctx, static_cast<int64_t>(*length / 2), "half the length of paddings")
                          : Shape::UnknownRank());
    return;
  }
  const size_t rank = x.rank();
  if (length && *length != 2 * rank) {
    ctx.Fail(fmt::format("paddings has {} entries but x {} needs 2 * rank = {}", *length, x.ToString(), 2 * rank));
  }
  std::vector<int64_t> dims(rank, kUnknown);
  const bool contiguous = infer::Attr<bool>(ctx, "paddings_contiguous");
  for (size_t d = 0; paddings && d < rank; ++d) {
    if (x.dim(d) == kUnknown) continue;
    const int64_t begin = (*paddings)[contiguous ? 2 * d : d];
    const int64_t end = (*paddings)[contiguous ? 2 * d + 1 : rank + d];
    const std::string what = fmt::format("dim {} of x {} padded by {} and {}", d, x.ToString(), begin, end);
    dims[d] = infer::CheckedDimAdd(ctx, infer::CheckedDimAdd(ctx, x.dim(d), begin, what), end, what);
    if (dims[d] < 0) {
      ctx.Fail(fmt::format("paddings [{}] crop more than dim {} of x {}", fmt::join(*paddings, ", "), d,
                           x.ToString()));
    }
  }
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::move(dims)));
}

int64_t BlockSize(InferContext& ctx) {
  const int64_t block = infer::Attr<int64_t>(ctx, "block_size");
  if (block < 1) ctx.Fail(fmt::format("attribute 'block_size' = {} must be positive", block));
  return block;
}

// block_size^2, the channels one output pixel's block takes.
int64_t BlockArea(InferContext& ctx, int64_t block) {
  return infer::CheckedDimMul(ctx, block, block, fmt::format("block_size {} squared", block));
}

void InferDepthToSpace(InferContext& ctx) {
  infer::RequireNCHW(ctx);
  const std::string& mode = infer::Attr<std::string>(ctx, "mode");
  if (mode != "DCR" && mode != "CRD") {
    ctx.Fail(fmt::format("attribute 'mode' = '{}' is not supported (valid: DCR, CRD)", mode));
  }
  const int64_t block = BlockSize(ctx);
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  infer::RequireRank(ctx, x, 4, "x");
  const int64_t c = x.dim(1);
  const int64_t area = BlockArea(ctx, block);
  if (c != kUnknown && c % area != 0) {
    ctx.Fail(fmt::format("channels of x {} are not a multiple of block_size^2 = {}", x.ToString(), area));
  }
  ctx.set_output(0, ctx.input_dtype(0),
                 Shape({x.dim(0), c == kUnknown ? kUnknown : c / area, Scaled(ctx, x, 2, block, "block_size"),
                        Scaled(ctx, x, 3, block, "block_size")}));
}

void InferSpaceToDepth(InferContext& ctx) {
  infer::RequireNCHW(ctx);
  const int64_t block = BlockSize(ctx);
  const Shape x = infer::WithRank(ctx.input_shape(0), 4);
  infer::RequireRank(ctx, x, 4, "x");
  for (size_t d : {2, 3}) {
    if (x.dim(d) != kUnknown && x.dim(d) % block != 0) {
      ctx.Fail(fmt::format("dim {} of x {} is not a multiple of block_size {}", d, x.ToString(), block));
    }
  }
  auto shrink = [&](int64_t dim) { return dim == kUnknown ? kUnknown : dim / block; };
  ctx.set_output(0, ctx.input_dtype(0),
                 Shape({x.dim(0), Scaled(ctx, x, 1, BlockArea(ctx, block), "block_size^2"), shrink(x.dim(2)),
                        shrink(x.dim(3))}));
}

void InferTriangle(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (!x.unknown_rank() && x.rank() < 2) ctx.Fail(fmt::format("x {} must have rank >= 2", x.ToString()));
  ctx.set_output(0, ctx.input_dtype(0), x);
}

}  // namespace

void RegisterLayoutOps(OpRegistry& registry) {
  registry.Register(OpSchema("Tile")
                        .Input("x")
                        .Input("multiples", "TIndex")
                        .Output("y")
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferTile)
                        .InferSymbolic(symbolic::Tile)
                        .Doc("Repeats x multiples[d] times along each dim d."));
  registry.Register(OpSchema("Expand")
                        .Input("x")
                        .Input("shape", "TIndex")
                        .Output("y")
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferExpand)
                        .InferSymbolic(symbolic::Expand)
                        .Doc("ONNX Expand: broadcasts x against shape (numpy rules)."));
  registry.Register(OpSchema("PadV3")
                        .Input("x")
                        .Input("paddings", "TIndex")
                        .OptionalInput("constant_values")
                        .Output("y")
                        .Attr("mode", std::string("constant"))
                        .Attr("paddings_contiguous", true)
                        .TypeConstraint("T", types::All())
                        .TypeConstraint("TIndex", types::IndexTypes())
                        .Infer(InferPad)
                        .Doc("Pads (negative: crops) each dim; mode constant (constant_values, default 0), "
                             "reflect or edge."));
  registry.Register(OpSchema("DepthToSpace")
                        .Input("x")
                        .Output("y")
                        .RequiredAttr("block_size", AttrType::kInt)
                        .Attr("mode", std::string("DCR"))
                        .Attr("data_format", std::string("NCHW"))
                        .TypeConstraint("T", types::All())
                        .Infer(InferDepthToSpace)
                        .Doc("Moves channel blocks into block_size x block_size spatial tiles (DCR or CRD order)."));
  registry.Register(OpSchema("SpaceToDepth")
                        .Input("x")
                        .Output("y")
                        .RequiredAttr("block_size", AttrType::kInt)
                        .Attr("data_format", std::string("NCHW"))
                        .TypeConstraint("T", types::All())
                        .Infer(InferSpaceToDepth)
                        .Doc("Moves block_size x block_size spatial tiles into channels (the inverse of DCR)."));
  for (const char* op : {"Tril", "Triu"}) {
    registry.Register(OpSchema(op)
                          .Input("x")
                          .OptionalInput("k", "TIndex")
                          .Output("y")
                          .Attr("diagonal", int64_t{0})
                          .TypeConstraint("T", types::All())
                          .TypeConstraint("TIndex", types::IndexTypes())
                          .Infer(InferTriangle)
                          .InferSymbolic(symbolic::SameAsInput)
                          .Doc("Keeps the lower (Tril: j - i <= diagonal) or upper (Triu: j - i >= diagonal) "
                               "triangle of the last two dims, zeroes the rest. The optional scalar input k (a ge "
                               "extension for ONNX Trilu's run-time k) replaces diagonal."));
  }
}

}  // namespace ge
