// A model with symbolic batch and sequence dims, for the dynamic-shape and
// concurrency tests, with its float64 reference written as plain loops.
#pragma once

#include <cstdint>
#include <memory>

#include "ge/graph.h"
#include "ge/tensor.h"
#include "test_models.h"

namespace ge::test {

// x "x" [B, S, 8] (B, S unknown) -> h = Relu(BatchMatMulV2(x, w) + b) [B, S, 4]
// -> Reshape(h, [Shape(x)[0], -1]) [B, S * 4]. The Reshape target is computed
// from x's shape at run time (as PyTorch exports do), so every shape follows
// from the input shape alone.
struct SequenceModel {
  static constexpr int64_t kFeatures = 8;
  static constexpr int64_t kHidden = 4;
  Tensor weight = RandomTensor({kFeatures, kHidden}, 51);
  Tensor bias = RandomTensor({kHidden}, 52);
  std::unique_ptr<Graph> Build() const;
  Tensor Reference(const Tensor& x) const;
  static Tensor Input(int64_t batch, int64_t sequence, uint32_t seed) {
    return RandomTensor({batch, sequence, kFeatures}, seed);
  }
};

}  // namespace ge::test
