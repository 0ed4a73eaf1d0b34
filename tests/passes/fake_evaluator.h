// A ConstantEvaluator for the pass tests that computes the few ops they fold
// by hand, so that the pass tests do not depend on the CPU kernels.
#pragma once

#include <map>
#include <string>

#include "passes/pass.h"

namespace ge::test {

// Evaluates GatherV2D (axis 0, 1-D int64 data), Unsqueeze (any dtype: the data
// is copied into the inferred output shape), ConcatD (1-D int64) and Add
// (float32, same shapes); nullopt for anything else. Counts calls per op type.
class FakeEvaluator : public ConstantEvaluator {
 public:
  std::optional<std::vector<Tensor>> Evaluate(const Node& node, const std::vector<Tensor>& inputs) override;
  std::map<std::string, int> calls;
};

// Shorthand for 1-D and scalar int64 constants.
Tensor Int64Tensor(const std::vector<int64_t>& values);
Tensor Int64Scalar(int64_t value);

}  // namespace ge::test
