#include "graph/tf/tf_tensor.h"

#include <cstring>

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/half_float_bits.h"

namespace ge::tf_import {
namespace {

[[noreturn]] void Invalid(const std::string& what, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {}", what, message));
}

// Fills `tensor` from `values`, the last repeating (an empty list leaves zeros).
template <typename T, typename Values>
void Fill(Tensor& tensor, const Values& values, const std::string& what) {
  const int64_t count = tensor.shape().NumElements();
  if (values.size() > count) Invalid(what, fmt::format("{} values for {} elements", values.size(), count));
  T* out = static_cast<T*>(tensor.data());
  for (int64_t i = 0; i < count; ++i) {
    out[i] = values.empty() ? T{} : static_cast<T>(values[std::min<int64_t>(i, values.size() - 1)]);
  }
}

}  // namespace

std::optional<DataType> DtypeFromTf(ge::tf::DataType dtype) {
  switch (dtype) {
    case ge::tf::DT_FLOAT: return DataType::kFloat;
    case ge::tf::DT_DOUBLE: return DataType::kDouble;
    case ge::tf::DT_HALF: return DataType::kFloat16;
    case ge::tf::DT_BFLOAT16: return DataType::kBFloat16;
    case ge::tf::DT_INT8: return DataType::kInt8;
    case ge::tf::DT_INT16: return DataType::kInt16;
    case ge::tf::DT_INT32: return DataType::kInt32;
    case ge::tf::DT_INT64: return DataType::kInt64;
    case ge::tf::DT_UINT8: return DataType::kUInt8;
    case ge::tf::DT_UINT16: return DataType::kUInt16;
    case ge::tf::DT_UINT32: return DataType::kUInt32;
    case ge::tf::DT_UINT64: return DataType::kUInt64;
    case ge::tf::DT_BOOL: return DataType::kBool;
    default: return std::nullopt;
  }
}

std::optional<Shape> ShapeFromTf(const ge::tf::TensorShapeProto& shape) {
  if (shape.unknown_rank()) return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& dim : shape.dim()) dims.push_back(dim.size() < 0 ? Shape::kUnknownDim : dim.size());
  return Shape(std::move(dims));
}

Tensor TensorFromTf(const ge::tf::TensorProto& proto, const std::string& what) {
  const std::optional<DataType> dtype = DtypeFromTf(proto.dtype());
  if (!dtype) Invalid(what, fmt::format("tensor of dtype {} is not supported", ge::tf::DataType_Name(proto.dtype())));
  const std::optional<Shape> shape = ShapeFromTf(proto.tensor_shape());
  if (!shape || !shape->IsStatic()) Invalid(what, "a constant tensor must have a static shape");
  for (int64_t d : shape->dims()) {
    if (d > (int64_t{1} << 40)) Invalid(what, fmt::format("dim {} is too large for a constant", d));
  }
  Tensor tensor(*dtype, *shape);
  if (!proto.tensor_content().empty()) {
    if (proto.tensor_content().size() != tensor.nbytes()) {
      Invalid(what, fmt::format("tensor_content has {} bytes; shape {} of {} takes {}", proto.tensor_content().size(),
                                shape->ToString(), DataTypeName(*dtype), tensor.nbytes()));
    }
    std::memcpy(tensor.data(), proto.tensor_content().data(), tensor.nbytes());
    return tensor;
  }
  switch (*dtype) {
    case DataType::kFloat: Fill<float>(tensor, proto.float_val(), what); break;
    case DataType::kDouble: Fill<double>(tensor, proto.double_val(), what); break;
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kUInt8:
    case DataType::kUInt16:
    case DataType::kInt32: {
      // int_val carries every integer type up to 32 bits.
      Tensor wide(DataType::kInt32, *shape);
      Fill<int32_t>(wide, proto.int_val(), what);
      if (*dtype == DataType::kInt32) return wide;
      const auto* values = static_cast<const int32_t*>(wide.data());
      for (int64_t i = 0; i < shape->NumElements(); ++i) {
        switch (*dtype) {
          case DataType::kInt8: static_cast<int8_t*>(tensor.data())[i] = static_cast<int8_t>(values[i]); break;
          case DataType::kInt16: static_cast<int16_t*>(tensor.data())[i] = static_cast<int16_t>(values[i]); break;
          case DataType::kUInt8: static_cast<uint8_t*>(tensor.data())[i] = static_cast<uint8_t>(values[i]); break;
          default: static_cast<uint16_t*>(tensor.data())[i] = static_cast<uint16_t>(values[i]); break;
        }
      }
      break;
    }
    case DataType::kInt64: Fill<int64_t>(tensor, proto.int64_val(), what); break;
    case DataType::kUInt32: Fill<uint32_t>(tensor, proto.uint32_val(), what); break;
    case DataType::kUInt64: Fill<uint64_t>(tensor, proto.uint64_val(), what); break;
    case DataType::kBool: Fill<bool>(tensor, proto.bool_val(), what); break;
    case DataType::kFloat16:
    case DataType::kBFloat16: Fill<uint16_t>(tensor, proto.half_val(), what); break;  // the bits
    default: Invalid(what, fmt::format("tensor of dtype {} is not supported", DataTypeName(*dtype)));
  }
  return tensor;
}

}  // namespace ge::tf_import
