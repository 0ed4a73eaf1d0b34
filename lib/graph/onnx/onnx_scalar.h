// Scalar constants of a given dtype, for the Const inputs translations add
// (Gemm's alpha/beta, Clip's bounds).
#pragma once

#include <optional>

#include "ge/tensor.h"

namespace ge::onnx_import {

// A rank-0 tensor holding `value` converted to `dtype` (16-bit floats are
// rounded to nearest even). nullopt for dtypes without a numeric value (bool,
// string, complex, undefined).
std::optional<Tensor> MakeScalar(DataType dtype, double value);

// The lowest or the largest finite value of `dtype` as a rank-0 tensor.
std::optional<Tensor> MakeLimitScalar(DataType dtype, bool largest);

}  // namespace ge::onnx_import
