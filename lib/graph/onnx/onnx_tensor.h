// ONNX tensors and value types -> ge tensors, dtypes and shapes.
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

#include "ge/shape.h"
#include "ge/tensor.h"
#include "ge/types.h"

namespace ge::onnx_import {

// The ge dtype of an ONNX TensorProto.DataType value, or nullopt when ge has no
// equivalent (string, complex and undefined are not importable).
std::optional<DataType> DataTypeFromOnnx(int32_t onnx_type);

// A tensor's content as an owning ge::Tensor. The data comes from raw_data or
// from the typed field ONNX stores that dtype in (float_data, int32_data for the
// narrow ints, bool and 16-bit floats, int64_data, uint64_data, double_data).
// External data must have been inlined first (see onnx_external_data.h).
// `what` names the tensor in errors, e.g. "model.onnx: initializer 'w'".
Tensor TensorFromOnnx(const onnx::TensorProto& proto, const std::string& what);
// The same, but a raw_data buffer is taken over instead of copied (the
// proto's raw_data is left empty): large models are not held twice while
// they import. The tensor is then a view, aligned as the heap aligns strings.
Tensor TakeTensorFromOnnx(onnx::TensorProto& proto, const std::string& what);

// dtype and shape of an ONNX value's type. Dims given by name (dim_param) or not
// given at all are Shape::kUnknownDim; a type without a shape has unknown rank.
// A sequence or optional is kSequence / kOptional of unknown length, with the
// dtype of its elements (kSequence for a sequence of sequences...), when known.
struct OnnxValueType {
  DataType dtype = DataType::kUndefined;
  Shape shape = Shape::UnknownRank();
  DataType element_dtype = DataType::kUndefined;
  // Per dim of a ranked tensor: its dim_param (a symbol such as "batch"), or
  // empty. Empty when no dim is named.
  std::vector<std::string> dim_names = {};
};
// nullopt when the value is neither a tensor of an importable dtype nor a
// sequence or optional.
std::optional<OnnxValueType> ValueTypeFromOnnx(const onnx::TypeProto& type);

}  // namespace ge::onnx_import
