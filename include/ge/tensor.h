// A typed, shaped block of host memory.
//
// Copies are shallow and share the buffer (like a shared_ptr); Clone() makes a
// deep copy. Buffers allocated by ge are 64-byte aligned and zero-filled.
// A borrowed tensor points at memory the caller owns and must keep alive.
//
// A Tensor also carries ONNX's sequences and optionals: its dtype is then
// kSequence or kOptional, its shape [number of elements] (0 or 1 for an
// optional), and elements() the values it holds, shared like any Tensor.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ge/export.h"
#include "ge/shape.h"
#include "ge/types.h"

namespace ge {

class GE_API Tensor {
 public:
  static constexpr size_t kAlignment = 64;

  Tensor() = default;
  // Allocates an owning, zero-filled buffer. The shape must be static.
  Tensor(DataType dtype, Shape shape);
  // Wraps caller-owned memory; nothing is copied or freed.
  static Tensor Borrow(DataType dtype, Shape shape, void* data);
  // A view of memory that `owner` keeps alive (a mapped model file, say):
  // the tensor and all its copies hold `owner`, so the memory outlives them.
  static Tensor View(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> owner);

  // A sequence of tensors of `element_dtype` (or of sequences, kSequence).
  // Throws kInvalidArgument naming the first element of another dtype.
  static Tensor Sequence(DataType element_dtype, std::vector<Tensor> elements);
  // An optional: `element`, or none (std::nullopt). Throws like Sequence.
  static Tensor Optional(DataType element_dtype, std::optional<Tensor> element);

  template <typename T>
  static Tensor FromVector(DataType dtype, Shape shape, const std::vector<T>& values) {
    Tensor t(dtype, std::move(shape));
    const size_t bytes = std::min(t.nbytes(), values.size() * sizeof(T));
    if (bytes > 0) std::memcpy(t.data(), values.data(), bytes);  // an empty vector's data() may be null
    return t;
  }

  bool empty() const { return dtype_ == DataType::kUndefined; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return shape_.NumElements(); }
  size_t nbytes() const;
  bool owns_data() const { return storage_ != nullptr; }
  // A sequence or an optional; the two accessors below throw kInvalidArgument
  // for anything else.
  bool is_container() const { return IsContainer(dtype_); }
  DataType element_dtype() const;
  const std::vector<Tensor>& elements() const;

  void* data() { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* data_as() { return static_cast<T*>(data_); }
  template <typename T>
  const T* data_as() const { return static_cast<const T*>(data_); }
  template <typename T>
  std::span<const T> values() const { return {data_as<T>(), static_cast<size_t>(num_elements())}; }

  // Deep copy into a new owning buffer.
  Tensor Clone() const;
  // Same buffer, new shape with the same element count (a view).
  Tensor Reshaped(Shape shape) const;

  // Integer contents widened to int64 (for shape-like tensors: Reshape's shape,
  // Slice's starts, ...). Throws ge::Error for non-integer tensors.
  std::vector<int64_t> ToInt64Vector() const;

  struct Elements;  // what a sequence or optional holds (tensor.cc)

 private:
  static Tensor Container(DataType kind, DataType element_dtype, std::vector<Tensor> elements);

  DataType dtype_ = DataType::kUndefined;
  Shape shape_;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
};

}  // namespace ge
