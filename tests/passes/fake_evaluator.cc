#include "fake_evaluator.h"

namespace ge::test {
namespace {

Tensor Gather(const Tensor& data, const Tensor& indices) {
  std::vector<int64_t> values = data.ToInt64Vector();
  std::vector<int64_t> gathered;
  for (int64_t index : indices.ToInt64Vector()) {
    gathered.push_back(values.at(index < 0 ? index + static_cast<int64_t>(values.size()) : index));
  }
  return Tensor::FromVector(DataType::kInt64, indices.shape(), gathered);
}

Tensor Concat(const std::vector<Tensor>& parts) {
  std::vector<int64_t> joined;
  for (const Tensor& part : parts) {
    std::vector<int64_t> values = part.ToInt64Vector();
    joined.insert(joined.end(), values.begin(), values.end());
  }
  return Int64Tensor(joined);
}

Tensor Add(const Tensor& a, const Tensor& b) {
  Tensor sum(DataType::kFloat, a.shape());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    sum.data_as<float>()[i] = a.data_as<float>()[i] + b.data_as<float>()[i];
  }
  return sum;
}

}  // namespace

std::optional<std::vector<Tensor>> FakeEvaluator::Evaluate(const Node& node, const std::vector<Tensor>& inputs) {
  ++calls[node.op_type()];
  if (node.op_type() == "GatherV2D") return std::vector<Tensor>{Gather(inputs[0], inputs[1])};
  if (node.op_type() == "Unsqueeze") return std::vector<Tensor>{inputs[0].Clone().Reshaped(node.output(0)->shape())};
  if (node.op_type() == "ConcatD") return std::vector<Tensor>{Concat(inputs)};
  if (node.op_type() == "Add") return std::vector<Tensor>{Add(inputs[0], inputs[1])};
  return std::nullopt;
}

Tensor Int64Tensor(const std::vector<int64_t>& values) {
  return Tensor::FromVector(DataType::kInt64, Shape{static_cast<int64_t>(values.size())}, values);
}

Tensor Int64Scalar(int64_t value) { return Tensor::FromVector(DataType::kInt64, Shape{}, std::vector{value}); }

}  // namespace ge::test
