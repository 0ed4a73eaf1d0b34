#include "test_models.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "ge/builder.h"
#include "ge/compiled_model.h"
#include "runtime/dynamic/dynamic_executor.h"

namespace ge::test {

Tensor RandomTensor(Shape shape, uint32_t seed) {
  Tensor tensor(DataType::kFloat, std::move(shape));
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float* data = tensor.data_as<float>();
  for (int64_t i = 0; i < tensor.num_elements(); ++i) data[i] = uniform(generator);
  return tensor;
}

std::unique_ptr<Graph> ConvReluModel::Build() const {
  GraphBuilder b("conv_relu");
  Value* x = b.Input("x", DataType::kFloat, InputShape());
  Conv2DOptions options;
  options.pads = {1, 1, 1, 1};
  Value* conv = b.Conv2D(x, b.Constant("filter", filter), b.Constant("bias", bias), options, "conv");
  b.Output(b.Relu(conv, "relu"));
  return b.Build();
}

Tensor ConvReluModel::Reference(const Tensor& x) const {
  const int64_t C = 2, H = 5, W = 5, K = 3, Cout = 3;
  const float* in = x.data_as<float>();
  const float* w = filter.data_as<float>();
  Tensor y(DataType::kFloat, {1, Cout, H, W});
  float* out = y.data_as<float>();
  for (int64_t o = 0; o < Cout; ++o) {
    for (int64_t i = 0; i < H; ++i) {
      for (int64_t j = 0; j < W; ++j) {
        double sum = bias.data_as<float>()[o];
        for (int64_t c = 0; c < C; ++c) {
          for (int64_t ki = 0; ki < K; ++ki) {
            for (int64_t kj = 0; kj < K; ++kj) {
              int64_t r = i + ki - 1, s = j + kj - 1;  // padding 1
              if (r < 0 || r >= H || s < 0 || s >= W) continue;
              sum += static_cast<double>(in[(c * H + r) * W + s]) * w[((o * C + c) * K + ki) * K + kj];
            }
          }
        }
        out[(o * H + i) * W + j] = static_cast<float>(std::max(sum, 0.0));
      }
    }
  }
  return y;
}

std::unique_ptr<Graph> MlpModel::Build() const {
  GraphBuilder b("mlp");
  Value* x = b.Input("x", DataType::kFloat, InputShape());
  Value* product = b.MatMul(x, b.Constant("w", weight), nullptr, false, false, "matmul");
  Value* biased = b.Add(product, b.Constant("b", bias), "add");
  b.Output(b.Reshape(b.Relu(biased, "relu"), {4, 2}, "reshape"));
  return b.Build();
}

Tensor MlpModel::Reference(const Tensor& x) const {
  const int64_t M = 2, K = 3, N = 4;
  Tensor y(DataType::kFloat, {4, 2});
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t n = 0; n < N; ++n) {
      double sum = bias.data_as<float>()[n];
      for (int64_t k = 0; k < K; ++k) {
        sum += static_cast<double>(x.data_as<float>()[m * K + k]) * weight.data_as<float>()[k * N + n];
      }
      y.data_as<float>()[m * N + n] = static_cast<float>(std::max(sum, 0.0));  // row-major: reshape keeps order
    }
  }
  return y;
}

bool BitIdentical(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.data(), b.data(), a.nbytes()) == 0;
}

const runtime::Storage& StorageOf(const CompiledModel::Impl& impl, const std::string& value_name) {
  size_t id = 0;
  while (id < impl.values.size() && impl.values[id]->name() != value_name) ++id;
  INFO("value " << value_name);
  REQUIRE(id < impl.values.size());
  return impl.storage[id];
}

const runtime::DynamicExecutor& ExecutorOf(const CompiledModel& model) {
  REQUIRE(model.impl().dynamic != nullptr);
  return *model.impl().dynamic;
}

}  // namespace ge::test
