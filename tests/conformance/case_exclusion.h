// Which conformance cases are out of scope for ge, decided by looking at the
// model only: ge's IR has tensors of numeric and bool dtypes, the default ONNX
// domain, and inference (no training ops).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace ge::conformance {

// The reason `model` is excluded, or nullopt when it is in scope. A model is
// excluded when any value (graph input/output/value_info, in subgraphs too) is
// a sequence, optional, map or string; any node (in subgraphs too) or imported
// opset is of a non-default domain; or a node is a training op or an op that
// produces or consumes sequences/optionals.
std::optional<std::string> ExclusionReason(const onnx::ModelProto& model);

}  // namespace ge::conformance
