// Matrix products: MatMulV2 (2-D), BatchMatMulV2 (numpy matmul), Einsum and
// MatrixDeterminant.
#include <fmt/core.h>

#include <utility>

#include "graph/einsum_equation.h"
#include "graph/ops/infer_helpers.h"
#include "graph/ops/integer_products.h"
#include "graph/ops/op_families.h"
#include "graph/ops/symbolic_rules.h"

namespace ge {
namespace {

// The optional bias is a vector of the N output columns.
void CheckBias(InferContext& ctx, int64_t n) {
  if (!ctx.has_input(2)) return;
  const Shape& bias = ctx.input_shape(2);
  infer::RequireRank(ctx, bias, 1, "bias");
  if (!bias.unknown_rank()) infer::MergeDim(ctx, bias.dim(0), n, "bias length and output columns N");
}

std::string ContractionMismatch(const Shape& x1, const Shape& x2) {
  return fmt::format("contracted dims of x1 {} and x2 {}", x1.ToString(), x2.ToString());
}

// [M, K] x [K, N] -> [M, N], either operand optionally transposed.
void InferMatMul(InferContext& ctx) {
  const Shape x1 = infer::WithRank(ctx.input_shape(0), 2);
  const Shape x2 = infer::WithRank(ctx.input_shape(1), 2);
  infer::RequireRank(ctx, x1, 2, "x1");
  infer::RequireRank(ctx, x2, 2, "x2");
  const bool t1 = infer::Attr<bool>(ctx, "transpose_x1");
  const bool t2 = infer::Attr<bool>(ctx, "transpose_x2");
  const int64_t m = x1.dim(t1 ? 1 : 0);
  const int64_t n = x2.dim(t2 ? 0 : 1);
  infer::MergeDim(ctx, x1.dim(t1 ? 0 : 1), x2.dim(t2 ? 1 : 0), ContractionMismatch(x1, x2));
  CheckBias(ctx, n);
  ctx.set_output(0, infer::ProductOutputDtype(ctx, {0, 1, 2, "x1", "x2"}), Shape({m, n}));
}

// Numpy matmul: a 1-D x1 is a row [1, K], a 1-D x2 a column [K, 1], and the
// added dim is dropped from the result; leading (batch) dims broadcast. adj_*
// transposes the last two dims of an operand of rank >= 2.
void InferBatchMatMul(InferContext& ctx) {
  const Shape& x1 = ctx.input_shape(0);
  const Shape& x2 = ctx.input_shape(1);
  if (x1.unknown_rank() || x2.unknown_rank()) {
    ctx.set_output(0, infer::ProductOutputDtype(ctx, {0, 1, 2, "x1", "x2"}), Shape::UnknownRank());
    return;
  }
  if (x1.rank() == 0 || x2.rank() == 0) {
    ctx.Fail(fmt::format("operands must have rank >= 1, got x1 {} and x2 {}", x1.ToString(), x2.ToString()));
  }
  auto as_matrix = [](const Shape& s, bool vector_is_row, bool adjoint) {
    std::vector<int64_t> dims = s.dims();
    if (dims.size() == 1) {
      dims.insert(vector_is_row ? dims.begin() : dims.end(), 1);
    } else if (adjoint) {
      std::swap(dims[dims.size() - 1], dims[dims.size() - 2]);
    }
    return dims;
  };
  const std::vector<int64_t> a = as_matrix(x1, true, infer::Attr<bool>(ctx, "adj_x1"));
  const std::vector<int64_t> b = as_matrix(x2, false, infer::Attr<bool>(ctx, "adj_x2"));
  infer::MergeDim(ctx, a[a.size() - 1], b[b.size() - 2], [&] { return ContractionMismatch(x1, x2); });
  const Shape batch = infer::Broadcast(ctx, Shape(std::vector<int64_t>(a.begin(), a.end() - 2)),
                                       Shape(std::vector<int64_t>(b.begin(), b.end() - 2)));
  std::vector<int64_t> out = batch.dims();
  if (x1.rank() > 1) out.push_back(a[a.size() - 2]);
  if (x2.rank() > 1) out.push_back(b[b.size() - 1]);
  CheckBias(ctx, b[b.size() - 1]);
  ctx.set_output(0, infer::ProductOutputDtype(ctx, {0, 1, 2, "x1", "x2"}), Shape(std::move(out)));
}

// The output has one dim per output label of the equation.
void InferEinsum(InferContext& ctx) {
  std::vector<size_t> ranks;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    shapes.push_back(ctx.input_shape(i));
    if (shapes.back().unknown_rank()) {
      ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
      return;
    }
    ranks.push_back(shapes.back().rank());
  }
  const auto& equation = infer::Attr<std::string>(ctx, "equation");
  const std::vector<int64_t> dims = infer::Guarded(ctx, "", [&] {
    const EinsumEquation eq = ParseEinsum(equation, ranks);
    const std::vector<int64_t> sizes = EinsumLabelSizes(eq, shapes);
    std::vector<int64_t> out;
    for (int label : eq.output) out.push_back(sizes[label]);
    return out;
  });
  ctx.set_output(0, ctx.input_dtype(0), Shape(dims));
}

// x [..., M, M] -> y [...].
void InferDeterminant(InferContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.unknown_rank()) {
    ctx.set_output(0, ctx.input_dtype(0), Shape::UnknownRank());
    return;
  }
  if (x.rank() < 2) ctx.Fail(fmt::format("x must have rank >= 2, got {}", x.ToString()));
  infer::MergeDim(ctx, x.dim(x.rank() - 2), x.dim(x.rank() - 1), fmt::format("the matrix dims of x {}", x.ToString()));
  ctx.set_output(0, ctx.input_dtype(0), Shape(std::vector<int64_t>(x.dims().begin(), x.dims().end() - 2)));
}

// ONNX MatMul's types: the float ones and the 32/64-bit integers.
const std::vector<DataType>& MatMulTypes() {
  static const std::vector<DataType> dtypes = [] {
    std::vector<DataType> all = types::Float();
    all.insert(all.end(), {DataType::kInt32, DataType::kInt64, DataType::kUInt32, DataType::kUInt64});
    return all;
  }();
  return dtypes;
}

// MatMul's types, or the quantized form (integer_products.h): int8/int16 x1
// (BatchMatMulV2: int8), int8 x2, int32 bias and y; offset_x is x1's zero point.
OpSchema ProductSchema(const char* op_type, const std::vector<DataType>& quantized_x1) {
  OpSchema schema(op_type);
  schema.Input("x1")
      .Input("x2", "T2")
      .OptionalInput("bias", "TBias")
      .OptionalInput("offset_w", "TOffset")
      .Output("y", "TBias")
      .TypeConstraint("T", infer::WithTypes(MatMulTypes(), quantized_x1))
      .TypeConstraint("T2", infer::WithTypes(MatMulTypes(), {DataType::kInt8}))
      .TypeConstraint("TBias", MatMulTypes())
      .TypeConstraint("TOffset", {DataType::kInt8});
  return schema;
}

}  // namespace

void RegisterMatMulOps(OpRegistry& registry) {
  registry.Register(ProductSchema("MatMulV2", infer::QuantizedActivationTypes())
                        .Attr("transpose_x1", false)
                        .Attr("transpose_x2", false)
                        .Attr("offset_x", int64_t{0})
                        .Infer(InferMatMul)
                        .InferSymbolic(symbolic::MatMul)
                        .Doc("2-D matrix product; the optional 1-D bias [N] is added to every row."));
  registry.Register(ProductSchema("BatchMatMulV2", {DataType::kInt8})
                        .Attr("adj_x1", false)
                        .Attr("adj_x2", false)
                        .Attr("offset_x", int64_t{0})
                        .Infer(InferBatchMatMul)
                        .InferSymbolic(symbolic::BatchMatMul)
                        .Doc("numpy matmul with batch broadcasting and 1-D operands."));
  registry.Register(OpSchema("Einsum")
                        .DynamicInput("x")
                        .Output("y")
                        .RequiredAttr("equation", AttrType::kString)
                        .TypeConstraint("T", types::Numeric())
                        .Infer(InferEinsum)
                        .Doc("Einstein summation over the inputs as the equation says (NumPy rules, ellipsis)."));
  registry.Register(OpSchema("MatrixDeterminant")
                        .Input("x")
                        .Output("y")
                        .TypeConstraint("T", types::Float())
                        .Infer(InferDeterminant)
                        .Doc("Determinant of each square matrix in the last two dims."));
}

}  // namespace ge
