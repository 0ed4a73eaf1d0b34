// Builds y = Relu(x) + c with the public API of the installed package, compiles
// it, runs it and compares with values computed by hand. Exit 0 on success.
#include <cstdio>
#include <memory>
#include <vector>

// The umbrella header: every public header must be installed for this to compile.
#include "ge/ge.h"

int main() {
  try {
    ge::GraphBuilder builder("consumer");
    ge::Value* x = builder.Input("x", ge::DataType::kFloat, ge::Shape{2, 3});
    ge::Value* c = builder.Constant(
        "c", ge::Tensor::FromVector<float>(ge::DataType::kFloat, ge::Shape{3}, {10.0f, 20.0f, 30.0f}));
    builder.Output(builder.Add(builder.Relu(x), c));

    const auto model = ge::CompiledModel::Compile(builder.Build());
    const ge::Tensor input =
        ge::Tensor::FromVector<float>(ge::DataType::kFloat, ge::Shape{2, 3}, {-1.0f, 2.0f, -3.0f, 4.0f, 0.5f, -0.5f});
    const std::vector<ge::Tensor> outputs = model->Run({input});

    // Relu(x) + c, broadcast over rows, worked out by hand.
    const float expected[] = {10.0f, 22.0f, 30.0f, 14.0f, 20.5f, 30.0f};
    if (outputs.size() != 1 || outputs[0].shape() != ge::Shape{2, 3}) {
      std::fprintf(stderr, "unexpected outputs\n");
      return 1;
    }
    const float* y = outputs[0].data_as<float>();
    for (int i = 0; i < 6; ++i) {
      if (y[i] != expected[i]) {
        std::fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], expected[i]);
        return 1;
      }
    }
    std::printf("consumer: Relu(x) + c computed correctly through the installed ge::ge\n");
    return 0;
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "consumer: ge error: %s\n", e.what());
    return 1;
  }
}
