#include "sequence_model.h"

#include <algorithm>
#include <vector>

#include "ge/builder.h"

namespace ge::test {

std::unique_ptr<Graph> SequenceModel::Build() const {
  GraphBuilder b("sequence");
  Value* x = b.Input("x", DataType::kFloat, {Shape::kUnknownDim, Shape::kUnknownDim, kFeatures});
  Value* product = b.BatchMatMul(x, b.Constant("w", weight), false, false, "matmul");
  Value* hidden = b.Relu(b.Add(product, b.Constant("b", bias), "add"), "relu");
  Value* shape = b.Op("Shape", {x}, {}, 1, "shape")[0];
  Value* zero = b.Constant("zero", Tensor::FromVector(DataType::kInt64, {1}, std::vector<int64_t>{0}));
  Value* batch = b.Op("GatherV2D", {shape, zero}, {}, 1, "batch")[0];
  Value* rest = b.Constant("rest", Tensor::FromVector(DataType::kInt64, {1}, std::vector<int64_t>{-1}));
  Value* target = b.Op("ConcatD", {batch, rest}, {{"concat_dim", int64_t{0}}, {"N", int64_t{2}}}, 1, "target")[0];
  b.Output(b.Op("Reshape", {hidden, target}, {}, 1, "flatten")[0]);
  return b.Build();
}

Tensor SequenceModel::Reference(const Tensor& x) const {
  const int64_t rows = x.shape().dim(0) * x.shape().dim(1);
  Tensor y(DataType::kFloat, {x.shape().dim(0), x.shape().dim(1) * kHidden});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t n = 0; n < kHidden; ++n) {
      double sum = bias.data_as<float>()[n];
      for (int64_t k = 0; k < kFeatures; ++k) {
        sum += double{x.data_as<float>()[r * kFeatures + k]} * weight.data_as<float>()[k * kHidden + n];
      }
      y.data_as<float>()[r * kHidden + n] = static_cast<float>(std::max(sum, 0.0));  // row-major: flatten keeps order
    }
  }
  return y;
}

}  // namespace ge::test
