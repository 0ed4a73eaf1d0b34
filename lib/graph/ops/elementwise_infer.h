// Inference and registration helpers shared by the elementwise op families
// (elementwise_ops.cc, logic_ops.cc, activation_ops.cc).
#pragma once

#include <vector>

#include "graph/op_schema.h"

namespace ge {

// y has x's dtype and shape.
void InferSameAsInput(InferContext& ctx);
// y has x1's dtype and the broadcast shape of x1 and x2.
void InferBroadcastBinary(InferContext& ctx);

// x -> y of the same dtype and shape, y = f(x).
void RegisterUnaryOp(OpRegistry& registry, const char* op_type, const std::vector<DataType>& dtypes, const char* doc);
// x1, x2 -> y of their dtype, numpy broadcasting.
void RegisterBinaryOp(OpRegistry& registry, const char* op_type, const std::vector<DataType>& dtypes,
                      const char* doc);

}  // namespace ge
