// A product whose operand is a transposed matrix, after transpose_matmul_fusion
// folded the TransposeD into its flags: the results equal a float64 product
// of the transposed operands, for BatchMatMulV2 and MatMulV2, either operand.
#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "test_support.h"

namespace ge {
namespace {

// y[b] = op(x1[b]) @ op(x2[b]) in float64, where op transposes the last two axes when asked.
Tensor Reference(const Tensor& x1, bool t1, const Tensor& x2, bool t2) {
  const Shape& s1 = x1.shape();
  const Shape& s2 = x2.shape();
  const size_t r = s1.rank();
  const int64_t batch = r == 3 ? s1.dim(0) : 1;
  const int64_t m = t1 ? s1.dim(r - 1) : s1.dim(r - 2), k = t1 ? s1.dim(r - 2) : s1.dim(r - 1);
  const int64_t n = t2 ? s2.dim(r - 2) : s2.dim(r - 1);
  std::vector<int64_t> dims = r == 3 ? std::vector<int64_t>{batch, m, n} : std::vector<int64_t>{m, n};
  Tensor y(DataType::kFloat, Shape(dims));
  const float* a = x1.data_as<float>();
  const float* b = x2.data_as<float>();
  for (int64_t i = 0; i < batch; ++i) {
    for (int64_t row = 0; row < m; ++row) {
      for (int64_t col = 0; col < n; ++col) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double av = t1 ? a[i * m * k + p * m + row] : a[i * m * k + row * k + p];
          const double bv = t2 ? b[i * k * n + col * k + p] : b[i * k * n + p * n + col];
          sum += av * bv;
        }
        y.data_as<float>()[(i * m + row) * n + col] = static_cast<float>(sum);
      }
    }
  }
  return y;
}

}  // namespace

TEST_CASE("transpose_matmul_fusion: transposed operands give the float64 products", "[e2e][fusion]") {
  const bool batched = GENERATE(false, true);
  const int operand = GENERATE(0, 1);
  CAPTURE(batched, operand);
  // Stored shapes: the transposed operand is stored as its transpose.
  const Shape x1_shape = batched ? (operand == 0 ? Shape{2, 7, 3} : Shape{2, 3, 7}) : (operand == 0 ? Shape{7, 3} : Shape{3, 7});
  const Shape x2_shape = batched ? (operand == 1 ? Shape{2, 5, 7} : Shape{2, 7, 5}) : (operand == 1 ? Shape{5, 7} : Shape{7, 5});
  const std::vector<int64_t> swap = batched ? std::vector<int64_t>{0, 2, 1} : std::vector<int64_t>{1, 0};
  GraphBuilder b("transposed_operand");
  Value* x1 = b.Input("x1", DataType::kFloat, x1_shape);
  Value* x2 = b.Input("x2", DataType::kFloat, x2_shape);
  Value* a = operand == 0 ? b.Transpose(x1, swap, "x1_t") : x1;
  Value* c = operand == 1 ? b.Transpose(x2, swap, "x2_t") : x2;
  b.Output(batched ? b.BatchMatMul(a, c, false, false, "y") : b.MatMul(a, c, nullptr, false, false, "y"));
  auto model = CompiledModel::Compile(b.Build());
  size_t transposes = 0;
  for (const Node* node : model->graph().nodes()) transposes += node->op_type() == "TransposeD";
  CHECK(transposes == 0);
  Tensor v1 = test::RandomFloats(x1_shape, 5, -1, 1), v2 = test::RandomFloats(x2_shape, 6, -1, 1);
  Tensor y = model->Run({v1, v2})[0];
  CHECK(test::MaxAbsDiff(y, Reference(v1, operand == 0, v2, operand == 1)) < 1e-5);
}

}  // namespace ge
