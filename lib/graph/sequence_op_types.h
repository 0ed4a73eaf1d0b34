// The op types of ONNX's sequences and optionals (graph/ops/sequence_ops.cc).
// The runtime runs them on whole values, never as kernels
// (runtime/dynamic/sequence_ops.h), so no device declares them.
#pragma once

#include <span>
#include <string_view>

namespace ge {

std::span<const std::string_view> SequenceOpTypes();
bool IsSequenceOpType(std::string_view op_type);

}  // namespace ge
