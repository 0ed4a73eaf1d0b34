// One attention head with a KV cache, the shape of a language-model decoder
// step, for the dynamic-shape tests; its float64 reference is plain loops.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ge/graph.h"
#include "ge/tensor.h"
#include "test_models.h"

namespace ge::test {

// x [1, T, D] and the cache past_k, past_v [1, P, D] (T and P unknown):
// q, k, v = x Wq, x Wk, x Wv; K = Concat(past_k, k), V = Concat(past_v, v)
// along the sequence; attention = Softmax(q Transpose(K) / sqrt(D)) V.
// Outputs: attention [1, T, D], K and V [1, P + T, D] (the next cache).
struct AttentionCacheModel {
  static constexpr int64_t kDim = 16;
  Tensor wq = RandomTensor({kDim, kDim}, 61);
  Tensor wk = RandomTensor({kDim, kDim}, 62);
  Tensor wv = RandomTensor({kDim, kDim}, 63);
  std::unique_ptr<Graph> Build() const;
  // The three outputs, in float64 rounded to float.
  std::vector<Tensor> Reference(const Tensor& x, const Tensor& past_k, const Tensor& past_v) const;
};

}  // namespace ge::test
