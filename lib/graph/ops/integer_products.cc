#include "graph/ops/integer_products.h"

#include <algorithm>

#include <fmt/core.h>

namespace ge::infer {

namespace {

bool IsQuantizedActivation(DataType dtype) {
  const auto& valid = QuantizedActivationTypes();
  return std::find(valid.begin(), valid.end(), dtype) != valid.end();
}

void RequireDtype(InferContext& ctx, size_t input, const std::string& name, DataType expected, const char* why) {
  if (!ctx.has_input(input) || ctx.input_dtype(input) == DataType::kUndefined) return;
  if (ctx.input_dtype(input) != expected) {
    ctx.Fail(fmt::format("input '{}' is {}; {} it must be {}", name, DataTypeName(ctx.input_dtype(input)), why,
                         DataTypeName(expected)));
  }
}

}  // namespace

const std::vector<DataType>& QuantizedActivationTypes() {
  static const std::vector<DataType> dtypes = {DataType::kInt8, DataType::kInt16};
  return dtypes;
}

DataType ProductOutputDtype(InferContext& ctx, const ProductPorts& ports) {
  const DataType x = ctx.input_dtype(ports.x);
  if (!IsQuantizedActivation(x)) {
    const std::string why = fmt::format("with {} '{}' (plain form: every operand has {}'s dtype)", DataTypeName(x),
                                        ports.x_name, ports.x_name);
    RequireDtype(ctx, ports.weight, ports.weight_name, x, why.c_str());
    RequireDtype(ctx, ports.bias, "bias", x, why.c_str());
    return x;
  }
  const std::string why = fmt::format("with {} '{}' (quantized form: int8/int16 {}, int8 {}, int32 bias, int32 y)",
                                      DataTypeName(x), ports.x_name, ports.x_name, ports.weight_name);
  RequireDtype(ctx, ports.weight, ports.weight_name, DataType::kInt8, why.c_str());
  RequireDtype(ctx, ports.bias, "bias", DataType::kInt32, why.c_str());
  return DataType::kInt32;
}

bool FollowsActivationDtype(const std::string& op_type, size_t input) {
  // Conv: x, filter, bias; transposed conv: input_size, x, filter, bias; matmul: x1, x2, bias.
  if (op_type == "Conv2D" || op_type == "Conv3D" || op_type == "MatMulV2" || op_type == "BatchMatMulV2") {
    return input == 1 || input == 2;
  }
  if (op_type == "Conv2DTranspose" || op_type == "Conv3DTranspose") return input == 2 || input == 3;
  return false;
}

std::vector<DataType> WithTypes(const std::vector<DataType>& base, const std::vector<DataType>& extra) {
  std::vector<DataType> all = base;
  for (DataType dtype : extra) {
    if (std::find(all.begin(), all.end(), dtype) == all.end()) all.push_back(dtype);
  }
  return all;
}

}  // namespace ge::infer
