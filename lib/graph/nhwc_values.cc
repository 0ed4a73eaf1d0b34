#include "graph/nhwc_values.h"

#include <cstring>

#include <fmt/core.h>

#include "ge/error.h"

namespace ge {

std::optional<std::string> NchwNameOf(const std::string& nhwc_name) {
  const std::string suffix = kNhwcSuffix;
  if (nhwc_name.size() <= suffix.size() || !nhwc_name.ends_with(suffix)) return std::nullopt;
  return nhwc_name.substr(0, nhwc_name.size() - suffix.size());
}

Shape PermutedShape(const Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<int64_t> dims;
  for (int64_t axis : perm) dims.push_back(shape.dim(static_cast<size_t>(axis)));
  return Shape(std::move(dims));
}

Tensor PermutedTensor(const Tensor& tensor, const std::vector<int64_t>& perm) {
  const size_t element = DataTypeSize(tensor.dtype());
  if (tensor.shape().unknown_rank() || tensor.shape().rank() != 4 || perm.size() != 4 || element == 0) {
    throw Error(ErrorCode::kInternal, fmt::format("PermutedTensor: a 4-D tensor of a sized dtype and a 4-axis perm "
                                                  "expected, got {} {}",
                                                  DataTypeName(tensor.dtype()), tensor.shape().ToString()));
  }
  const std::vector<int64_t>& in = tensor.shape().dims();
  Tensor out(tensor.dtype(), PermutedShape(tensor.shape(), perm));
  // Input strides in elements, then in the output's axis order.
  const int64_t in_strides[4] = {in[1] * in[2] * in[3], in[2] * in[3], in[3], 1};
  int64_t stride[4];
  for (size_t k = 0; k < 4; ++k) stride[k] = in_strides[perm[k]];
  const std::vector<int64_t>& d = out.shape().dims();
  const auto* x = static_cast<const std::byte*>(tensor.data());
  auto* y = static_cast<std::byte*>(out.data());
  for (int64_t a = 0; a < d[0]; ++a) {
    for (int64_t b = 0; b < d[1]; ++b) {
      for (int64_t c = 0; c < d[2]; ++c) {
        for (int64_t e = 0; e < d[3]; ++e, y += element) {
          const int64_t source = a * stride[0] + b * stride[1] + c * stride[2] + e * stride[3];
          std::memcpy(y, x + static_cast<size_t>(source) * element, element);
        }
      }
    }
  }
  return out;
}

}  // namespace ge
