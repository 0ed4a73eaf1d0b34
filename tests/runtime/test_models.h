// Small graphs shared by the runtime tests, each with a float64 reference
// written as plain loops (the oracle the compiled model is checked against).
#pragma once

#include <cstdint>
#include <memory>

#include "ge/graph.h"
#include "runtime/execution_plan.h"
#include "ge/tensor.h"

namespace ge::test {

// Uniform values in [-1, 1) from a fixed-seed generator.
Tensor RandomTensor(Shape shape, uint32_t seed);

// y = Relu(Conv2D(x, filter, bias)) with stride 1 and padding 1 on every side;
// x is the float32 input "x" [1, 2, 5, 5], filter [3, 2, 3, 3], bias [3].
struct ConvReluModel {
  Tensor filter = RandomTensor({3, 2, 3, 3}, 11);
  Tensor bias = RandomTensor({3}, 12);
  std::unique_ptr<Graph> Build() const;
  Tensor Reference(const Tensor& x) const;
  static Shape InputShape() { return {1, 2, 5, 5}; }
};

// y = Reshape(Relu(MatMulV2(x, w) + b), [4, 2]); x is "x" [2, 3], w [3, 4], b [4].
struct MlpModel {
  Tensor weight = RandomTensor({3, 4}, 21);
  Tensor bias = RandomTensor({4}, 22);
  std::unique_ptr<Graph> Build() const;
  Tensor Reference(const Tensor& x) const;
  static Shape InputShape() { return {2, 3}; }
};

bool BitIdentical(const Tensor& a, const Tensor& b);

// Where the compiled model keeps the value of that name (fails the test when there is none).
const runtime::Storage& StorageOf(const CompiledModel::Impl& impl, const std::string& value_name);

// The executor of a dynamic model (fails the test for a static one).
const runtime::DynamicExecutor& ExecutorOf(const CompiledModel& model);

}  // namespace ge::test
