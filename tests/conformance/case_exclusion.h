// Which conformance cases are out of scope for ge, decided by looking at the
// model only: ge's IR has tensors of numeric and bool dtypes, sequences and
// optionals of those, the default ONNX domain, and inference (no training ops).
#pragma once

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>

namespace ge::conformance {

// The reason `model` is excluded, or nullopt when it is in scope. A model is
// excluded when any value (graph input/output/value_info, in subgraphs too) is
// or holds a map, sparse tensor or string; any node (in subgraphs too) or
// imported opset is of a non-default domain; or a node is a training op or a
// string op.
std::optional<std::string> ExclusionReason(const onnx::ModelProto& model);

}  // namespace ge::conformance
