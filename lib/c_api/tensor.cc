// Tensor handles: engine-owned (create) or over caller memory (wrap).
#include <fmt/core.h>

#include "c_api_internal.h"

namespace {

ge::Shape StaticShape(const int64_t* dims, size_t rank) {
  ge::Shape shape = ge::capi::ToShape(dims, rank);
  for (int64_t dim : shape.dims()) {
    if (dim < 0) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument,
                      fmt::format("tensor shape {} has a negative dim", shape.ToString()));
    }
  }
  return shape;
}

}  // namespace

extern "C" {

ge_status ge_tensor_create(ge_dtype dtype, const int64_t* dims, size_t rank, ge_tensor** out) {
  return ge::capi::Guard("ge_tensor_create", [&] {
    ge::capi::Require(out, "out");
    auto tensor = std::make_unique<ge::capi::TensorHandle>(ge::capi::TensorHandle{ge::Tensor(ge::capi::ToDataType(dtype), StaticShape(dims, rank))});
    *out = ToC(tensor.release());
  });
}

ge_status ge_tensor_wrap(ge_dtype dtype, const int64_t* dims, size_t rank, void* data, ge_tensor** out) {
  return ge::capi::Guard("ge_tensor_wrap", [&] {
    ge::capi::Require(out, "out");
    ge::capi::Require(data, "data");
    auto tensor = std::make_unique<ge::capi::TensorHandle>(
        ge::capi::TensorHandle{ge::Tensor::Borrow(ge::capi::ToDataType(dtype), StaticShape(dims, rank), data)});
    *out = ToC(tensor.release());
  });
}

void ge_tensor_release(ge_tensor* tensor) { delete FromC(tensor); }

ge_dtype ge_tensor_dtype(const ge_tensor* tensor) {
  return tensor == nullptr ? GE_DTYPE_UNDEFINED : static_cast<ge_dtype>(FromC(tensor)->tensor.dtype());
}

size_t ge_tensor_rank(const ge_tensor* tensor) { return tensor == nullptr ? 0 : FromC(tensor)->tensor.shape().rank(); }

const int64_t* ge_tensor_dims(const ge_tensor* tensor) {
  return tensor == nullptr ? nullptr : FromC(tensor)->tensor.shape().dims().data();
}

size_t ge_tensor_nbytes(const ge_tensor* tensor) { return tensor == nullptr ? 0 : FromC(tensor)->tensor.nbytes(); }

void* ge_tensor_data(ge_tensor* tensor) { return tensor == nullptr ? nullptr : FromC(tensor)->tensor.data(); }

}  // extern "C"
