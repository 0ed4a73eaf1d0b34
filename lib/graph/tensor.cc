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

// What a sequence or optional Tensor points at.
struct Tensor::Elements {
  DataType dtype;
  std::vector<Tensor> values;
};

namespace {

Tensor::Elements* ElementsOf(const Tensor& tensor, const void* data) {
  if (!tensor.is_container()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("a {} tensor holds no elements: only sequences and optionals do",
                            DataTypeName(tensor.dtype())));
  }
  return static_cast<Tensor::Elements*>(const_cast<void*>(data));
}

}  // namespace

Tensor Tensor::Container(DataType kind, DataType element_dtype, std::vector<Tensor> elements) {
  for (size_t i = 0; i < elements.size(); ++i) {
    if (elements[i].dtype() != element_dtype) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{} of {}: element {} is {}", DataTypeName(kind), DataTypeName(element_dtype), i,
                              DataTypeName(elements[i].dtype())));
    }
  }
  Tensor t;
  t.dtype_ = kind;
  t.shape_ = Shape{static_cast<int64_t>(elements.size())};
  auto held = std::make_shared<Elements>(Elements{element_dtype, std::move(elements)});
  t.data_ = held.get();
  t.storage_ = std::move(held);
  return t;
}

Tensor Tensor::Sequence(DataType element_dtype, std::vector<Tensor> elements) {
  return Container(DataType::kSequence, element_dtype, std::move(elements));
}

Tensor Tensor::Optional(DataType element_dtype, std::optional<Tensor> element) {
  std::vector<Tensor> elements;
  if (element) elements.push_back(std::move(*element));
  return Container(DataType::kOptional, element_dtype, std::move(elements));
}

DataType Tensor::element_dtype() const { return ElementsOf(*this, data_)->dtype; }
const std::vector<Tensor>& Tensor::elements() const { return ElementsOf(*this, data_)->values; }

Tensor::Tensor(DataType dtype, Shape shape) : dtype_(dtype), shape_(std::move(shape)) {
  RequireStatic(shape_);
  if (dtype == DataType::kUndefined || dtype == DataType::kString || IsContainer(dtype)) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("cannot allocate a tensor of dtype {}", DataTypeName(dtype)));
  }
  storage_ = AllocateAligned(nbytes(), shape_, dtype_);
  data_ = storage_.get();
}

Tensor Tensor::Borrow(DataType dtype, Shape shape, void* data) {
  RequireStatic(shape);
  if (IsContainer(dtype)) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("a {} cannot wrap memory: make it from its elements (Tensor::Sequence, Tensor::Optional)",
                            DataTypeName(dtype)));
  }
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
  if (is_container()) {
    std::vector<Tensor> copies;
    for (const Tensor& element : elements()) copies.push_back(element.Clone());
    return Container(dtype_, element_dtype(), std::move(copies));
  }
  Tensor copy(dtype_, shape_);
  if (nbytes()) std::memcpy(copy.data_, data_, nbytes());
  return copy;
}

Tensor Tensor::Reshaped(Shape shape) const {
  if (is_container()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("cannot view a {} as a tensor", DataTypeName(dtype_)));
  }
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
