// An inception-like block for the multi-stream benchmark and tests: one
// input [1, channels, size, size] feeding `branches` parallel chains of
// `depth` Conv2D (3x3, padding 1, `channels` filters, bias) + Relu, joined
// by a Concat over channels. Weights are uniform in [-0.5, 0.5) from `seed`.
#pragma once

#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "ge/builder.h"

namespace ge::bench {

inline std::unique_ptr<Graph> InceptionLikeGraph(int branches, int depth, int64_t channels, int64_t size,
                                                 uint32_t seed = 1) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
  auto random = [&](Shape shape) {
    Tensor tensor(DataType::kFloat, std::move(shape));
    for (float& v : std::span<float>(tensor.data_as<float>(), static_cast<size_t>(tensor.num_elements()))) {
      v = dist(engine);
    }
    return tensor;
  };
  GraphBuilder b("inception_like");
  Value* x = b.Input("x", DataType::kFloat, {1, channels, size, size});
  Conv2DOptions same;
  same.pads = {1, 1, 1, 1};
  std::vector<Value*> ends;
  for (int branch = 0; branch < branches; ++branch) {
    Value* h = x;
    for (int layer = 0; layer < depth; ++layer) {
      std::string name = "b" + std::to_string(branch) + "_" + std::to_string(layer);
      Value* filter = b.Constant(name + "_w", random({channels, channels, 3, 3}));
      Value* bias = b.Constant(name + "_b", random({channels}));
      h = b.Relu(b.Conv2D(h, filter, bias, same, name + "_conv"), name + "_relu");
    }
    ends.push_back(h);
  }
  b.Output(b.Concat(ends, 1, "concat"));
  return b.Build();
}

}  // namespace ge::bench
