// Dtype rules of the products (Conv2D, Conv2DTranspose, Conv3D, MatMulV2,
// BatchMatMulV2) that have a float form, where every operand shares x's
// dtype, and a quantized form (issue 6): x int8/int16, weight int8, bias
// int32, y int32. The schemas give each operand its own type variable; these
// functions check the combination and say which one the node is.
#pragma once

#include <string>
#include <vector>

#include "graph/op_schema.h"

namespace ge::infer {

// Where the operands of one product are.
struct ProductPorts {
  size_t x;
  size_t weight;
  size_t bias;
  std::string x_name = "x";
  std::string weight_name = "filter";
};

// The dtypes x may have in the quantized form.
const std::vector<DataType>& QuantizedActivationTypes();

// Checks the operand dtypes against the float rule (all equal to x's) or the
// quantized one, failing with a message naming the input and its valid
// dtypes; returns y's dtype (x's, or int32).
DataType ProductOutputDtype(InferContext& ctx, const ProductPorts& ports);

// Whether input `input` of the op is a product's weight or bias, which the
// float form gives x's dtype although its type variable is its own: passes
// that change x's float dtype (precision modes) change these with it.
bool FollowsActivationDtype(const std::string& op_type, size_t input);

// `base` plus `extra` (without repeats): a type constraint for the widened operand.
std::vector<DataType> WithTypes(const std::vector<DataType>& base, const std::vector<DataType>& extra);

}  // namespace ge::infer
