#include "ge/tensor.h"

#include <cstdlib>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/byte_size.h"

namespace ge {
namespace {

std::shared_ptr<void> AllocateAligned(size_t bytes, const Shape& shape, DataType dtype) {
  // aligned_alloc needs a size that is a multiple of the alignment, and a
  // non-zero size so that empty tensors still have a distinct address.
  size_t padded = ((bytes + Tensor::kAlignment - 1) / Tensor::kAlignment) * Tensor::kAlignment;
  if (padded == 0) padded = Tensor::kAlignment;
  void* ptr = std::aligned_alloc(Tensor::kAlignment, padded);
  if (!ptr) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("cannot allocate {} bytes for a {} tensor of shape {}: out of "
                                                         "memory",
                                                         bytes, DataTypeName(dtype), shape.ToString()));
  }
  std::memset(ptr, 0, padded);
  return std::shared_ptr<void>(ptr, std::free);
}

void RequireStatic(const Shape& shape) {
  if (!shape.IsStatic()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot allocate a tensor of non-static shape {}", shape.ToString()));
  }
}

template <typename T>
void Widen(const Tensor& t, std::vector<int64_t>& out) {
  for (T v : t.values<T>()) out.push_back(static_cast<int64_t>(v));
}

}  // namespace

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  RequireStatic(shape_);
  if (dtype == DataType::kUndefined || dtype == DataType::kString) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("cannot allocate a tensor of dtype {}", DataTypeName(dtype)));
  }
  storage_ = AllocateAligned(nbytes(), shape_, dtype_);
  data_ = storage_.get();
}

Tensor Tensor::Borrow(DataType dtype, Shape shape, void* data) {
  RequireStatic(shape);
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.data_ = data;
  return t;
}

Tensor Tensor::View(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner) {
  Tensor t = Borrow(dtype, std::move(shape), const_cast<void*>(data));
  // Aliasing: shares owner's control block, points at data.
  t.storage_ = std::shared_ptr<void>(std::const_pointer_cast<void>(std::move(owner)), t.data_);
  return t;
}

size_t Tensor::nbytes() const {
  if (!shape_.IsStatic()) return 0;
  const std::optional<int64_t> bytes = CheckedByteSize(shape_, dtype_);
  if (!bytes) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("a {} tensor of shape {} has more bytes than int64 can count",
                                                         DataTypeName(dtype_), shape_.ToString()));
  }
  return static_cast<size_t>(*bytes);
}

Tensor Tensor::Clone() const {
  if (empty()) return {};
  Tensor copy(dtype_, shape_);
  if (nbytes()) std::memcpy(copy.data_, data_, nbytes());
  return copy;
}

Tensor Tensor::Reshaped(Shape shape) const {
  if (shape.NumElements() != shape_.NumElements()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("cannot view a tensor of shape {} as {}",
                                                         shape_.ToString(), shape.ToString()));
  }
  Tensor view = *this;
  view.shape_ = std::move(shape);
  return view;
}

std::vector<int64_t> Tensor::ToInt64Vector() const {
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(std::max<int64_t>(num_elements(), 0)));
  switch (dtype_) {
    case DataType::kInt64: Widen<int64_t>(*this, out); break;
    case DataType::kInt32: Widen<int32_t>(*this, out); break;
    case DataType::kInt16: Widen<int16_t>(*this, out); break;
    case DataType::kInt8: Widen<int8_t>(*this, out); break;
    case DataType::kUInt8: Widen<uint8_t>(*this, out); break;
    case DataType::kUInt16: Widen<uint16_t>(*this, out); break;
    case DataType::kUInt32: Widen<uint32_t>(*this, out); break;
    case DataType::kUInt64: Widen<uint64_t>(*this, out); break;
    case DataType::kBool: Widen<uint8_t>(*this, out); break;
    default:
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("expected an integer tensor, got {}", DataTypeName(dtype_)));
  }
  return out;
}

}  // namespace ge
