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

void* ge_tensor_data(ge_tensor* tensor) {
  // A container's data is ge's own bookkeeping, not elements a caller could read.
  return tensor == nullptr || FromC(tensor)->tensor.is_container() ? nullptr : FromC(tensor)->tensor.data();
}

ge_status ge_tensor_sequence_create(ge_dtype element_dtype, ge_tensor* const* elements, size_t count,
                                    ge_tensor** out) {
  return ge::capi::Guard("ge_tensor_sequence_create", [&] {
    ge::capi::Require(out, "out");
    std::vector<ge::Tensor> values = ge::capi::ToTensors(elements, count, "elements");
    auto tensor = std::make_unique<ge::capi::TensorHandle>(
        ge::capi::TensorHandle{ge::Tensor::Sequence(ge::capi::ToDataType(element_dtype), std::move(values))});
    *out = ToC(tensor.release());
  });
}

ge_status ge_tensor_optional_create(ge_dtype element_dtype, const ge_tensor* element, ge_tensor** out) {
  return ge::capi::Guard("ge_tensor_optional_create", [&] {
    ge::capi::Require(out, "out");
    std::optional<ge::Tensor> value;
    if (element != nullptr) value = FromC(element)->tensor;
    auto tensor = std::make_unique<ge::capi::TensorHandle>(
        ge::capi::TensorHandle{ge::Tensor::Optional(ge::capi::ToDataType(element_dtype), std::move(value))});
    *out = ToC(tensor.release());
  });
}

ge_status ge_tensor_element_dtype(const ge_tensor* container, ge_dtype* out) {
  return ge::capi::Guard("ge_tensor_element_dtype", [&] {
    ge::capi::Require(container, "container");
    ge::capi::Require(out, "out");
    *out = static_cast<ge_dtype>(FromC(container)->tensor.element_dtype());
  });
}

ge_status ge_tensor_element(const ge_tensor* container, size_t index, ge_tensor** out) {
  return ge::capi::Guard("ge_tensor_element", [&] {
    ge::capi::Require(container, "container");
    ge::capi::Require(out, "out");
    const std::vector<ge::Tensor>& elements = FromC(container)->tensor.elements();
    if (index >= elements.size()) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument,
                      fmt::format("index {} is out of range: the {} holds {} elements", index,
                                  ge::DataTypeName(FromC(container)->tensor.dtype()), elements.size()));
    }
    *out = ToC(new ge::capi::TensorHandle{elements[index]});
  });
}

}  // extern "C"
