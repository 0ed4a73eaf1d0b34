#include "graph/onnx/onnx_tensor.h"

#include <fmt/core.h>

#include <cstring>
#include <limits>

#include "ge/error.h"

namespace ge::onnx_import {
namespace {

using onnx::TensorProto;

// Element count of `dims`, refusing negative dims and products that overflow.
int64_t CheckedElementCount(const TensorProto& proto, const std::string& what) {
  int64_t count = 1;
  for (int64_t dim : proto.dims()) {
    if (dim < 0) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: negative dimension {} in dims", what, dim));
    }
    if (dim != 0 && count > std::numeric_limits<int64_t>::max() / dim) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: the element count overflows int64", what));
    }
    count *= dim;
  }
  return count;
}

// How many elements the stored data holds: compared with dims before anything
// is allocated, so a tiny file claiming huge dims cannot exhaust memory.
int64_t StoredElementCount(const TensorProto& proto, DataType dtype) {
  if (proto.has_raw_data()) return static_cast<int64_t>(proto.raw_data().size() / DataTypeSize(dtype));
  switch (proto.data_type()) {
    case TensorProto::FLOAT: return proto.float_data_size();
    case TensorProto::COMPLEX64: return proto.float_data_size() / 2;  // two floats per element
    case TensorProto::DOUBLE: return proto.double_data_size();
    case TensorProto::COMPLEX128: return proto.double_data_size() / 2;
    case TensorProto::INT64: return proto.int64_data_size();
    case TensorProto::UINT32:
    case TensorProto::UINT64: return proto.uint64_data_size();
    default: return proto.int32_data_size();  // the narrower ints, bool and 16-bit floats
  }
}

// Copies a repeated typed field into the tensor, narrowing each element to
// the storage type (ONNX widens int8/int16/bool/float16 values into int32_data).
template <typename Storage, typename Field>
void CopyTypedField(const Field& field, Tensor& tensor) {
  auto* out = tensor.data_as<Storage>();
  for (int i = 0; i < field.size(); ++i) out[i] = static_cast<Storage>(field.Get(i));
}

// Complex tensors keep (real, imaginary) pairs in float_data/double_data.
template <typename Field>
void CopyComplexField(const Field& field, Tensor& tensor) {
  std::memcpy(tensor.data(), field.data(), tensor.nbytes());
}

void CopyTypedData(const TensorProto& proto, Tensor& tensor, const std::string& what) {
  switch (proto.data_type()) {
    case TensorProto::FLOAT: return CopyTypedField<float>(proto.float_data(), tensor);
    case TensorProto::DOUBLE: return CopyTypedField<double>(proto.double_data(), tensor);
    case TensorProto::INT64: return CopyTypedField<int64_t>(proto.int64_data(), tensor);
    case TensorProto::UINT32: return CopyTypedField<uint32_t>(proto.uint64_data(), tensor);
    case TensorProto::UINT64: return CopyTypedField<uint64_t>(proto.uint64_data(), tensor);
    case TensorProto::INT32: return CopyTypedField<int32_t>(proto.int32_data(), tensor);
    case TensorProto::INT16: return CopyTypedField<int16_t>(proto.int32_data(), tensor);
    case TensorProto::INT8: return CopyTypedField<int8_t>(proto.int32_data(), tensor);
    case TensorProto::UINT16: return CopyTypedField<uint16_t>(proto.int32_data(), tensor);
    case TensorProto::UINT8: return CopyTypedField<uint8_t>(proto.int32_data(), tensor);
    case TensorProto::BOOL: return CopyTypedField<bool>(proto.int32_data(), tensor);
    // 16-bit floats are stored as their bit patterns in the low half of int32_data.
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16: return CopyTypedField<uint16_t>(proto.int32_data(), tensor);
    case TensorProto::COMPLEX64: return CopyComplexField(proto.float_data(), tensor);
    case TensorProto::COMPLEX128: return CopyComplexField(proto.double_data(), tensor);
    default: break;
  }
  // DataTypeFromOnnx admits only the dtypes handled above.
  throw Error(ErrorCode::kInternal, fmt::format("{}: no typed data field for ONNX dtype {}", what, proto.data_type()));
}

struct CheckedTensorType {
  DataType dtype;
  Shape shape;
};

// The tensor's dtype and shape, once its stored data is known to fit them.
CheckedTensorType CheckOnnxTensor(const TensorProto& proto, const std::string& what) {
  if (proto.data_location() == TensorProto::EXTERNAL) {
    throw Error(ErrorCode::kInternal, fmt::format("{}: external data was not loaded before conversion", what));
  }
  std::optional<DataType> dtype = DataTypeFromOnnx(proto.data_type());
  if (!dtype) {
    const char* name = TensorProto::DataType_IsValid(proto.data_type())
                           ? TensorProto::DataType_Name(static_cast<TensorProto::DataType>(proto.data_type())).c_str()
                           : "invalid";
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: tensors of ONNX dtype {} ({}) cannot be imported", what, name, proto.data_type()));
  }
  const int64_t count = CheckedElementCount(proto, what);
  Shape shape(std::vector<int64_t>(proto.dims().begin(), proto.dims().end()));
  const int64_t stored = StoredElementCount(proto, *dtype);
  if (stored != count || (proto.has_raw_data() && proto.raw_data().size() % DataTypeSize(*dtype) != 0)) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: {} has {} but dims {} of {} need {} elements", what,
                            proto.has_raw_data() ? "raw_data" : "the typed data field",
                            proto.has_raw_data() ? fmt::format("{} bytes", proto.raw_data().size())
                                                 : fmt::format("{} values", stored),
                            shape.ToString(), DataTypeName(*dtype), count));
  }
  return {*dtype, std::move(shape)};
}

}  // namespace

std::optional<DataType> DataTypeFromOnnx(int32_t onnx_type) {
  switch (onnx_type) {
    case TensorProto::FLOAT: return DataType::kFloat;
    case TensorProto::UINT8: return DataType::kUInt8;
    case TensorProto::INT8: return DataType::kInt8;
    case TensorProto::UINT16: return DataType::kUInt16;
    case TensorProto::INT16: return DataType::kInt16;
    case TensorProto::INT32: return DataType::kInt32;
    case TensorProto::INT64: return DataType::kInt64;
    case TensorProto::BOOL: return DataType::kBool;
    case TensorProto::FLOAT16: return DataType::kFloat16;
    case TensorProto::DOUBLE: return DataType::kDouble;
    case TensorProto::UINT32: return DataType::kUInt32;
    case TensorProto::UINT64: return DataType::kUInt64;
    case TensorProto::COMPLEX64: return DataType::kComplex64;
    case TensorProto::COMPLEX128: return DataType::kComplex128;
    case TensorProto::BFLOAT16: return DataType::kBFloat16;
    default: return std::nullopt;
  }
}


Tensor TensorFromOnnx(const TensorProto& proto, const std::string& what) {
  CheckedTensorType type = CheckOnnxTensor(proto, what);
  Tensor tensor(type.dtype, std::move(type.shape));
  if (proto.has_raw_data()) {
    // ONNX raw_data is little-endian, like every host ge runs on.
    std::memcpy(tensor.data(), proto.raw_data().data(), tensor.nbytes());
  } else {
    CopyTypedData(proto, tensor, what);
  }
  return tensor;
}

Tensor TakeTensorFromOnnx(TensorProto& proto, const std::string& what) {
  if (!proto.has_raw_data() || proto.raw_data().empty()) return TensorFromOnnx(proto, what);
  CheckedTensorType type = CheckOnnxTensor(proto, what);
  // The string's heap buffer becomes the tensor's: moving a std::string keeps its data pointer.
  auto bytes = std::make_shared<const std::string>(std::move(*proto.mutable_raw_data()));
  proto.clear_raw_data();
  const void* data = bytes->data();
  return Tensor::View(type.dtype, std::move(type.shape), data, std::move(bytes));
}

namespace {

// What a sequence or optional holds, as a ge dtype (undefined when unsaid).
DataType ElementDtypeFromOnnx(const onnx::TypeProto& element) {
  if (element.has_sequence_type()) return DataType::kSequence;
  if (element.has_optional_type()) return DataType::kOptional;
  if (!element.has_tensor_type()) return DataType::kUndefined;
  return DataTypeFromOnnx(element.tensor_type().elem_type()).value_or(DataType::kUndefined);
}

}  // namespace

std::optional<OnnxValueType> ValueTypeFromOnnx(const onnx::TypeProto& type) {
  if (type.has_sequence_type() || type.has_optional_type()) {
    OnnxValueType result;
    result.dtype = type.has_sequence_type() ? DataType::kSequence : DataType::kOptional;
    result.shape = Shape{Shape::kUnknownDim};
    result.element_dtype = ElementDtypeFromOnnx(type.has_sequence_type() ? type.sequence_type().elem_type()
                                                                         : type.optional_type().elem_type());
    return result;
  }
  if (!type.has_tensor_type()) return std::nullopt;
  const auto& tensor_type = type.tensor_type();
  std::optional<DataType> dtype = DataTypeFromOnnx(tensor_type.elem_type());
  if (!dtype) return std::nullopt;
  OnnxValueType result;
  result.dtype = *dtype;
  if (tensor_type.has_shape()) {
    std::vector<int64_t> dims;
    bool named = false;
    for (const auto& dim : tensor_type.shape().dim()) {
      const bool known = dim.has_dim_value() && dim.dim_value() >= 0;
      dims.push_back(known ? dim.dim_value() : Shape::kUnknownDim);
      result.dim_names.push_back(!known && dim.has_dim_param() ? dim.dim_param() : std::string());
      named = named || !result.dim_names.back().empty();
    }
    if (!named) result.dim_names.clear();
    result.shape = Shape(std::move(dims));
  }
  return result;
}

}  // namespace ge::onnx_import
