// Builds a tiny classifier with ge::GraphBuilder (conv -> relu -> flatten ->
// matmul -> softmax), compiles it for the default device and runs it once.
#include <cstdio>
#include <exception>
#include <vector>

#include "ge/ge.h"

namespace {

// A deterministic ramp of `count` values in [-scale, scale], standing in for trained weights.
std::vector<float> Ramp(size_t count, float scale) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i) {
    values[i] = scale * (2.0f * static_cast<float>(i % 17) / 16.0f - 1.0f);
  }
  return values;
}

ge::Tensor FloatTensor(ge::Shape shape, float scale) {
  const auto count = static_cast<size_t>(shape.NumElements());
  return ge::Tensor::FromVector(ge::DataType::kFloat, std::move(shape), Ramp(count, scale));
}

std::unique_ptr<ge::Graph> BuildClassifier() {
  ge::GraphBuilder b("tiny_classifier");
  ge::Value* image = b.Input("image", ge::DataType::kFloat, {1, 3, 8, 8});
  ge::Value* conv = b.Conv2D(image, b.Constant("conv.weight", FloatTensor({4, 3, 3, 3}, 0.2f)),
                             b.Constant("conv.bias", FloatTensor({4}, 0.1f)),
                             {.strides = {2, 2}, .pads = {1, 1, 1, 1}});  // -> [1, 4, 4, 4]
  ge::Value* features = b.Flatten(b.Relu(conv));                          // -> [1, 64]
  ge::Value* logits = b.MatMul(features, b.Constant("fc.weight", FloatTensor({64, 10}, 0.05f)),
                               b.Constant("fc.bias", FloatTensor({10}, 0.01f)));
  b.Output(b.Softmax(logits, -1, "probabilities"));
  return b.Build();
}

}  // namespace

int main() {
  try {
    auto model = ge::CompiledModel::Compile(BuildClassifier());
    const std::vector<ge::Tensor> outputs = model->Run({FloatTensor({1, 3, 8, 8}, 1.0f)});
    const ge::Tensor& probabilities = outputs.at(0);
    std::printf("output %s %s on %s:\n", model->outputs().at(0).name.c_str(), probabilities.shape().ToString().c_str(),
                model->device_name().c_str());
    float sum = 0;
    for (float p : probabilities.values<float>()) {
      std::printf("  %.6f\n", p);
      sum += p;
    }
    std::printf("sum = %.6f\n", sum);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "builder_example: %s\n", e.what());
    return 1;
  }
}
