// Tensors with a 0 dim are legal (ONNX, numpy) and run: empty outputs stay
// empty, and outputs that are not empty get numpy's values (a matrix product
// over K = 0 is zeros, a reduction over an empty axis is its identity).
// A MatMul over a [0, K] input used to die of SIGFPE inside oneDNN.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "ge/builder.h"
#include "ge/compiled_model.h"

namespace ge::test {
namespace {

Tensor Filled(Shape shape, float start) {
  Tensor t(DataType::kFloat, std::move(shape));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data_as<float>()[i] = start + static_cast<float>(i);
  return t;
}

std::vector<Tensor> CompileAndRun(GraphBuilder& b, const std::vector<Tensor>& inputs) {
  return CompiledModel::Compile(b.Build())->Run(inputs);
}

}  // namespace

TEST_CASE("MatMul over an input with 0 rows gives an empty output") {
  GraphBuilder b("matmul");
  Value* x = b.Input("x", DataType::kFloat, {0, 2});
  b.Output(b.MatMul(x, b.Constant("w", Filled({2, 3}, 1.0f))));
  const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {0, 2})});
  CHECK(y[0].shape() == Shape{0, 3});
}

TEST_CASE("MatMul with K = 0 gives zeros, plus the bias when there is one") {
  GraphBuilder b("matmul_k0");
  Value* x = b.Input("x", DataType::kFloat, {3, 0});
  Value* w = b.Input("w", DataType::kFloat, {0, 2});
  Value* bias = b.Constant("bias", Filled({2}, 5.0f));
  b.Outputs({b.MatMul(x, w, nullptr, false, false, "plain"), b.MatMul(x, w, bias, false, false, "biased")});
  const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {3, 0}), Tensor(DataType::kFloat, {0, 2})});
  REQUIRE(y[0].shape() == Shape{3, 2});
  REQUIRE(y[1].shape() == Shape{3, 2});
  for (int i = 0; i < 6; ++i) {
    CHECK(y[0].data_as<float>()[i] == 0.0f);
    CHECK(y[1].data_as<float>()[i] == 5.0f + static_cast<float>(i % 2));
  }
}

TEST_CASE("Elementwise ops, Transpose and Concat run over empty tensors") {
  GraphBuilder b("shapes");
  Value* x = b.Input("x", DataType::kFloat, {0, 3});
  Value* z = b.Input("z", DataType::kFloat, {2, 0});
  Value* w = b.Input("w", DataType::kFloat, {2, 3});
  b.Outputs({b.Add(b.Relu(x), x), b.Transpose(x, {1, 0}), b.Concat({z, w, z}, 1)});
  const std::vector<Tensor> y =
      CompileAndRun(b, {Tensor(DataType::kFloat, {0, 3}), Tensor(DataType::kFloat, {2, 0}), Filled({2, 3}, 1.0f)});
  CHECK(y[0].shape() == Shape{0, 3});
  CHECK(y[1].shape() == Shape{3, 0});
  REQUIRE(y[2].shape() == Shape{2, 3});
  for (int i = 0; i < 6; ++i) CHECK(y[2].data_as<float>()[i] == 1.0f + static_cast<float>(i));
}

TEST_CASE("Reductions over an empty axis give the identity of the reduction") {
  // numpy: sum 0, prod 1; ONNX: max -inf, min +inf; the mean of nothing is 0 / 0.
  const std::vector<std::pair<std::string, float>> cases = {
      {"ReduceSumD", 0.0f},
      {"ReduceProdD", 1.0f},
      {"ReduceMaxD", -std::numeric_limits<float>::infinity()},
      {"ReduceMinD", std::numeric_limits<float>::infinity()},
      {"ReduceL2D", 0.0f}};
  for (const auto& [op, identity] : cases) {
    INFO(op);
    GraphBuilder b("reduce");
    Value* x = b.Input("x", DataType::kFloat, {2, 0});
    b.Output(b.Op(op, {x}, {{"axes", std::vector<int64_t>{1}}})[0]);
    const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {2, 0})});
    REQUIRE(y[0].shape() == Shape{2});
    CHECK(y[0].data_as<float>()[0] == identity);
    CHECK(y[0].data_as<float>()[1] == identity);
  }
  GraphBuilder b("mean");
  b.Output(b.Op("ReduceMeanD", {b.Input("x", DataType::kFloat, {2, 0})}, {{"axes", std::vector<int64_t>{1}}})[0]);
  const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {2, 0})});
  CHECK(std::isnan(y[0].data_as<float>()[0]));
}

TEST_CASE("A convolution over an empty batch gives an empty output") {
  GraphBuilder b("conv");
  Value* x = b.Input("x", DataType::kFloat, {0, 1, 4, 4});
  b.Output(b.Conv2D(x, b.Constant("w", Filled({2, 1, 3, 3}, 0.0f))));
  const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {0, 1, 4, 4})});
  CHECK(y[0].shape() == Shape{0, 2, 2, 2});
}

}  // namespace ge::test

namespace ge::test {

TEST_CASE("Batched products, normalizations, pooling and casts run over empty batches") {
  GraphBuilder b("batch0");
  Value* x = b.Input("x", DataType::kFloat, {0, 2, 3});
  Value* w = b.Input("w", DataType::kFloat, {0, 3, 4});
  Value* image = b.Input("image", DataType::kFloat, {0, 1, 4, 4});
  Value* gamma = b.Constant("gamma", Filled({3}, 1.0f));
  Value* beta = b.Constant("beta", Filled({3}, 0.0f));
  b.Outputs({b.BatchMatMul(x, w), b.Softmax(x), b.LayerNorm(x, gamma, beta), b.MaxPool(image),
             b.Cast(x, DataType::kFloat16)});
  const std::vector<Tensor> y = CompileAndRun(
      b, {Tensor(DataType::kFloat, {0, 2, 3}), Tensor(DataType::kFloat, {0, 3, 4}), Tensor(DataType::kFloat, {0, 1, 4, 4})});
  CHECK(y[0].shape() == Shape{0, 2, 4});
  CHECK(y[1].shape() == Shape{0, 2, 3});
  CHECK(y[2].shape() == Shape{0, 2, 3});
  CHECK(y[3].shape().dim(0) == 0);
  CHECK(y[4].shape() == Shape{0, 2, 3});
}

TEST_CASE("Padding an empty tensor fills the output with the constant") {
  GraphBuilder b("pad");
  Value* x = b.Input("x", DataType::kFloat, {0, 2});
  Tensor paddings(DataType::kInt64, {4});
  const int64_t pads[] = {1, 1, 0, 0};  // (begin, end) per dim: rows 0 -> 2
  std::copy(std::begin(pads), std::end(pads), paddings.data_as<int64_t>());
  Tensor value(DataType::kFloat, {});
  value.data_as<float>()[0] = 7.0f;
  b.Output(b.Op("PadV3", {x, b.Constant("paddings", paddings), b.Constant("value", value)})[0]);
  const std::vector<Tensor> y = CompileAndRun(b, {Tensor(DataType::kFloat, {0, 2})});
  REQUIRE(y[0].shape() == Shape{2, 2});
  for (int i = 0; i < 4; ++i) CHECK(y[0].data_as<float>()[i] == 7.0f);
}

}  // namespace ge::test
