// MatrixDeterminant against cofactor expansion in float64.
#include <cmath>

#include <catch2/catch.hpp>

#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

double Cofactor(const std::vector<double>& m, int64_t n) {
  if (n == 1) return m[0];
  double det = 0;
  for (int64_t col = 0; col < n; ++col) {
    std::vector<double> minor;
    for (int64_t r = 1; r < n; ++r)
      for (int64_t c = 0; c < n; ++c)
        if (c != col) minor.push_back(m[r * n + c]);
    det += (col % 2 == 0 ? 1 : -1) * m[col] * Cofactor(minor, n - 1);
  }
  return det;
}

}  // namespace

TEST_CASE("MatrixDeterminant of batches of square matrices, singular ones included", "[device][det]") {
  std::mt19937 rng(70);
  for (int64_t n : {1, 2, 3, 4}) {
    for (DataType dtype : {DataType::kFloat, DataType::kDouble}) {
      Tensor x = RandomTensor(dtype, {2, 3, n, n}, rng, -2, 2);
      const auto xd = ToDoubles(x);
      std::vector<double> expected;
      for (int64_t b = 0; b < 6; ++b) {
        expected.push_back(Cofactor(std::vector<double>(xd.begin() + b * n * n, xd.begin() + (b + 1) * n * n), n));
      }
      Graph g;
      Node* node = g.AddNode("MatrixDeterminant", "det", {g.AddInput("x", dtype, x.shape())});
      SetOutput(node, 0, dtype, {2, 3});
      INFO(n << " " << DataTypeName(dtype));
      CheckClose(RunCpuKernel(*node, {x})[0], expected, 1e-5, 1e-5);
    }
  }
  Tensor singular = Tensor::FromVector(DataType::kDouble, Shape{2, 2}, std::vector<double>{1, 2, 2, 4});
  Graph g;
  Node* node = g.AddNode("MatrixDeterminant", "det", {g.AddInput("x", DataType::kDouble, Shape{2, 2})});
  SetOutput(node, 0, DataType::kDouble, Shape{});
  CheckClose(RunCpuKernel(*node, {singular})[0], {0.0}, 0, 1e-12);
}
