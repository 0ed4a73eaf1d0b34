#include "attention_cache_model.h"

#include <cmath>

#include "ge/builder.h"

namespace ge::test {

std::unique_ptr<Graph> AttentionCacheModel::Build() const {
  GraphBuilder b("attention_cache");
  const Shape sequence{1, Shape::kUnknownDim, kDim};
  Value* x = b.Input("x", DataType::kFloat, sequence);
  Value* past_k = b.Input("past_k", DataType::kFloat, sequence);
  Value* past_v = b.Input("past_v", DataType::kFloat, sequence);
  Value* q = b.BatchMatMul(x, b.Constant("wq", wq), false, false, "q");
  Value* k = b.BatchMatMul(x, b.Constant("wk", wk), false, false, "k");
  Value* v = b.BatchMatMul(x, b.Constant("wv", wv), false, false, "v");
  Value* keys = b.Concat({past_k, k}, 1, "keys");
  Value* values = b.Concat({past_v, v}, 1, "values");
  Value* keys_t = b.Transpose(keys, {0, 2, 1}, "keys_t");
  Value* scale = b.Constant("scale", Tensor::FromVector(DataType::kFloat, {}, std::vector<float>{
                                                                                 std::sqrt(float{kDim})}));
  Value* scores = b.Div(b.BatchMatMul(q, keys_t, false, false, "scores"), scale, "scaled");
  Value* attention = b.BatchMatMul(b.Softmax(scores, -1, "probs"), values, false, false, "attention");
  b.Outputs({attention, keys, values});
  return b.Build();
}

std::vector<Tensor> AttentionCacheModel::Reference(const Tensor& x, const Tensor& past_k, const Tensor& past_v) const {
  const int64_t t = x.shape().dim(1), p = past_k.shape().dim(1), total = p + t;
  auto project = [&](const Tensor& w, int64_t row, int64_t col) {
    double sum = 0;
    for (int64_t i = 0; i < kDim; ++i) sum += double{x.data_as<float>()[row * kDim + i]} * w.data_as<float>()[i * kDim + col];
    return sum;
  };
  std::vector<double> q(t * kDim), keys(total * kDim), values(total * kDim);
  for (int64_t r = 0; r < total; ++r) {
    for (int64_t c = 0; c < kDim; ++c) {
      keys[r * kDim + c] = r < p ? past_k.data_as<float>()[r * kDim + c] : project(wk, r - p, c);
      values[r * kDim + c] = r < p ? past_v.data_as<float>()[r * kDim + c] : project(wv, r - p, c);
      if (r < t) q[r * kDim + c] = project(wq, r, c);
    }
  }
  Tensor attention(DataType::kFloat, {1, t, kDim});
  for (int64_t r = 0; r < t; ++r) {
    std::vector<double> weights(total);
    double max = -INFINITY, sum = 0;
    for (int64_t j = 0; j < total; ++j) {
      double dot = 0;
      for (int64_t c = 0; c < kDim; ++c) dot += q[r * kDim + c] * keys[j * kDim + c];
      weights[j] = dot / std::sqrt(double{kDim});
      max = std::max(max, weights[j]);
    }
    for (double& w : weights) sum += (w = std::exp(w - max));
    for (int64_t c = 0; c < kDim; ++c) {
      double out = 0;
      for (int64_t j = 0; j < total; ++j) out += weights[j] / sum * values[j * kDim + c];
      attention.data_as<float>()[r * kDim + c] = static_cast<float>(out);
    }
  }
  auto to_tensor = [&](const std::vector<double>& data) {
    Tensor out(DataType::kFloat, {1, total, kDim});
    for (size_t i = 0; i < data.size(); ++i) out.data_as<float>()[i] = static_cast<float>(data[i]);
    return out;
  };
  return {attention, to_tensor(keys), to_tensor(values)};
}

}  // namespace ge::test
