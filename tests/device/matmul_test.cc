// MatMulV2 and BatchMatMulV2 (oneDNN) against a float64 numpy-matmul loop.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "graph/shapes_at_run.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// numpy matmul of a (optionally transposed in its last two dims) and b, plus bias[N].
std::vector<double> ReferenceMatMul(const Tensor& a, const Tensor& b, bool ta, bool tb, const Tensor* bias,
                                    std::vector<int64_t>& out_dims) {
  std::vector<int64_t> ad = a.shape().dims(), bd = b.shape().dims();
  const bool a_vec = ad.size() == 1, b_vec = bd.size() == 1;
  if (a_vec) ad.insert(ad.begin(), 1);
  if (b_vec) bd.push_back(1);
  const size_t ar = ad.size(), br = bd.size();
  const int64_t m = ta && !a_vec ? ad[ar - 1] : ad[ar - 2];
  const int64_t k = ta && !a_vec ? ad[ar - 2] : ad[ar - 1];
  const int64_t n = tb && !b_vec ? bd[br - 2] : bd[br - 1];
  const size_t batch_rank = std::max(ar, br) - 2;
  std::vector<int64_t> batch(batch_rank);
  for (size_t i = 0; i < batch_rank; ++i) {
    const int64_t da = i + ar >= batch_rank + 2 ? ad[i + ar - batch_rank - 2] : 1;
    const int64_t db = i + br >= batch_rank + 2 ? bd[i + br - batch_rank - 2] : 1;
    batch[i] = std::max(da, db);
  }
  const auto av = ToDoubles(a), bv = ToDoubles(b);
  const std::vector<double> biasv = bias ? ToDoubles(*bias) : std::vector<double>(n, 0.0);
  std::vector<double> out;
  int64_t batches = 1;
  for (int64_t d : batch) batches *= d;
  for (int64_t t = 0; t < batches; ++t) {
    const auto bi = Unravel(t, batch);
    auto offset = [&](const std::vector<int64_t>& dims) {  // start of this batch's matrix
      std::vector<int64_t> index(dims.size(), 0);
      for (size_t d = 0; d + 2 < dims.size(); ++d) {
        const int64_t src = bi[d + batch_rank + 2 - dims.size()];
        index[d] = dims[d] == 1 ? 0 : src;
      }
      return Ravel(index, dims);
    };
    const int64_t ao = offset(ad), bo = offset(bd);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = biasv[j];
        for (int64_t p = 0; p < k; ++p) {
          const double x = av[ao + (ta && !a_vec ? p * m + i : i * k + p)];
          const double y = bv[bo + (tb && !b_vec ? j * k + p : p * n + j)];
          acc += x * y;
        }
        out.push_back(acc);
      }
  }
  out_dims = batch;
  if (!a_vec) out_dims.push_back(m);
  if (!b_vec) out_dims.push_back(n);
  return out;
}

void CheckMatMul(const std::string& op, Shape a_shape, Shape b_shape, bool ta, bool tb, bool with_bias,
                 bool constant_b, std::mt19937& rng, bool shapes_at_run = false) {
  Tensor a = RandomTensor(DataType::kFloat, a_shape, rng);
  Tensor b = RandomTensor(DataType::kFloat, b_shape, rng);
  const size_t br = b_shape.rank();
  const int64_t n = br == 1 ? 1 : b_shape.dim(tb ? br - 2 : br - 1);
  std::vector<int64_t> out_dims;
  Tensor bias = RandomTensor(DataType::kFloat, {n}, rng);
  const std::vector<double> expected = ReferenceMatMul(a, b, ta, tb, with_bias ? &bias : nullptr, out_dims);

  Graph g;
  std::vector<Value*> inputs = {g.AddInput("a", DataType::kFloat, a_shape),
                                constant_b ? g.AddConstant("b", b) : g.AddInput("b", DataType::kFloat, b_shape)};
  if (with_bias) inputs.push_back(g.AddConstant("bias", bias));
  Node* node = g.AddNode(op, "mm", inputs);
  const bool v2 = op == "MatMulV2";
  node->attrs().Set(v2 ? "transpose_x1" : "adj_x1", ta);
  node->attrs().Set(v2 ? "transpose_x2" : "adj_x2", tb);
  node->attrs().Set("offset_x", int64_t{0});
  if (shapes_at_run) node->attrs().Set(kShapesAtRunAttr, true);
  SetOutput(node, 0, DataType::kFloat, Shape(out_dims));
  INFO(op << " " << a_shape.ToString() << " x " << b_shape.ToString() << " ta " << ta << " tb " << tb << " bias "
          << with_bias << " constant b " << constant_b << " shapes at run " << shapes_at_run);
  CheckClose(RunCpuKernel(*node, {a, constant_b ? Tensor() : b})[0], expected, 1e-5, 1e-5);
}

}  // namespace

TEST_CASE("MatMulV2 with transposes, bias and packed constant weights", "[device][matmul]") {
  std::mt19937 rng(20);
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool constant_b : {false, true}) {
        CheckMatMul("MatMulV2", ta ? Shape{33, 17} : Shape{17, 33}, tb ? Shape{20, 33} : Shape{33, 20}, ta, tb,
                    /*with_bias=*/true, constant_b, rng);
      }
  CheckMatMul("MatMulV2", {64, 128}, {128, 96}, false, false, false, true, rng);
}

TEST_CASE("BatchMatMulV2 broadcasts batches and follows numpy 1-D rules", "[device][matmul]") {
  std::mt19937 rng(21);
  CheckMatMul("BatchMatMulV2", {3, 4, 5}, {3, 5, 6}, false, false, false, false, rng);
  CheckMatMul("BatchMatMulV2", {2, 3, 4, 5}, {5, 6}, false, false, true, true, rng);     // weights broadcast
  CheckMatMul("BatchMatMulV2", {4, 5}, {2, 3, 5, 6}, false, false, false, false, rng);   // x1 broadcast
  CheckMatMul("BatchMatMulV2", {2, 1, 4, 5}, {1, 3, 5, 6}, false, false, false, false, rng);  // both
  CheckMatMul("BatchMatMulV2", {2, 5, 4}, {2, 6, 5}, true, true, false, false, rng);     // adjoints
  CheckMatMul("BatchMatMulV2", {5}, {2, 5, 6}, false, false, false, false, rng);          // 1-D x1
  CheckMatMul("BatchMatMulV2", {2, 4, 5}, {5}, false, false, false, false, rng);          // 1-D x2
  CheckMatMul("BatchMatMulV2", {7}, {7}, false, false, false, false, rng);                // dot product
}

TEST_CASE("the run-shaped products of dynamic models: few rows, sgemm and a constant weight", "[device][matmul]") {
  std::mt19937 rng(22);
  for (bool tb : {false, true}) {
    for (bool with_bias : {false, true}) {
      // One to four rows by a variable matrix (a decoder's attention), then five (sgemm).
      for (int64_t rows : {1, 3, 4, 5}) {
        CheckMatMul("MatMulV2", {rows, 64}, tb ? Shape{37, 64} : Shape{64, 37}, false, tb, with_bias, false, rng,
                    /*shapes_at_run=*/true);
      }
      // A batch of heads, and a transposed x1 (sgemm).
      CheckMatMul("BatchMatMulV2", {2, 3, 1, 16}, tb ? Shape{2, 3, 9, 16} : Shape{2, 3, 16, 9}, false, tb, with_bias,
                  false, rng, /*shapes_at_run=*/true);
      CheckMatMul("MatMulV2", {16, 2}, tb ? Shape{9, 16} : Shape{16, 9}, true, tb, with_bias, false, rng,
                  /*shapes_at_run=*/true);
      // A constant weight read where it is: once (3 rows), by sgemm (7).
      for (int64_t rows : {3, 7}) {
        CheckMatMul("MatMulV2", {rows, 40}, tb ? Shape{24, 40} : Shape{40, 24}, false, tb, with_bias, true, rng,
                    /*shapes_at_run=*/true);
      }
    }
  }
}

// A MatMulV2 node of x [rows, K] times the constant w, whose kernel takes its shapes at run time and packs w
// (ge.exec.dynamicPackWeights).
Node* AddWeightProduct(Graph& g, int64_t rows, const Tensor& w, bool transposed) {
  const int64_t k = w.shape().dim(transposed ? 1 : 0), n = w.shape().dim(transposed ? 0 : 1);
  Node* node = g.AddNode("MatMulV2", "fc", {g.AddInput("x", DataType::kFloat, {rows, k}), g.AddConstant("w", w)});
  node->attrs().Set("transpose_x1", false);
  node->attrs().Set("transpose_x2", transposed);
  node->attrs().Set("offset_x", int64_t{0});
  node->attrs().Set(kShapesAtRunAttr, true);
  node->attrs().Set(kPackWeightsAttr, true);
  SetOutput(node, 0, DataType::kFloat, {rows, n});
  return node;
}

TEST_CASE("a packed constant weight at many row counts: one kernel, one packed copy shared with other kernels",
          "[device][matmul]") {
  std::mt19937 rng(23);
  for (bool transposed : {false, true}) {
    const Tensor w = RandomTensor(DataType::kFloat, transposed ? Shape{48, 80} : Shape{80, 48}, rng);
    Graph built_from;
    const std::unique_ptr<device::Kernel> kernel = CreateCpuKernel(*AddWeightProduct(built_from, 3, w, transposed));
    CHECK(kernel->PackedInputs().empty());  // packed by the first run
    // More row counts than the kernel keeps primitives for, some coming back.
    for (int64_t rows : {1, 3, 7, 64, 2, 9, 10, 11, 12, 13, 14, 1, 64, 5}) {
      Graph g;
      const Node* node = AddWeightProduct(g, rows, w, transposed);
      const Tensor x = RandomTensor(DataType::kFloat, {rows, 80}, rng);
      std::vector<int64_t> out_dims;
      INFO("rows " << rows << " transposed " << transposed);
      CheckClose(RunKernel(*kernel, *node, {x})[0], ReferenceMatMul(x, w, false, transposed, nullptr, out_dims), 1e-5,
                 1e-5);
    }
    // The last row count's copy: none where oneDNN's kernel for this CPU
    // reads the plain layout (AVX2 and older, at some row counts).
    const std::vector<device::Kernel::PackedInput> packed = kernel->PackedInputs();
    REQUIRE(packed.size() <= 1);
    if (packed.empty()) continue;
    CHECK(packed[0].input == 1);
    CHECK(packed[0].data != w.data());
    // A second kernel of the same weight finds the copy the first made.
    Graph g;
    const Node* node = AddWeightProduct(g, 5, w, transposed);
    const std::unique_ptr<device::Kernel> other = CreateCpuKernel(*node);
    RunKernel(*other, *node, {RandomTensor(DataType::kFloat, {5, 80}, rng)});
    REQUIRE(other->PackedInputs().size() == 1);
    CHECK(other->PackedInputs()[0].data == packed[0].data);
  }
}

TEST_CASE("matmul with mismatched inner dims fails naming the node", "[device][matmul]") {
  Graph g;
  Node* node = g.AddNode("MatMulV2", "fc1", {g.AddInput("a", DataType::kFloat, {2, 3}),
                                              g.AddInput("b", DataType::kFloat, {4, 5})});
  node->attrs().Set("transpose_x1", false);
  node->attrs().Set("transpose_x2", false);
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {2, 5});
  CHECK_THROWS_WITH(RunCpuKernel(*node, {Tensor(DataType::kFloat, {2, 3}), Tensor(DataType::kFloat, {4, 5})}),
                    Catch::Contains("fc1") && Catch::Contains("inner dimensions"));
}
