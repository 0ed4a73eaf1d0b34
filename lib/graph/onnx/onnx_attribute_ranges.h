// Checks, before ONNX shape inference sees a model, the attribute values and
// declared dims that ONNX's own inference divides by or sizes loops with: a
// Conv with strides 0 otherwise dies of SIGFPE inside onnx::shape_inference.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace ge::onnx_import {

// Walks the graph and its subgraphs at any depth. Throws kInvalidModel naming
// origin, the node (name and op type) or value, the attribute, the bad value
// and the valid range.
void CheckAttributeRanges(const onnx::GraphProto& graph, const std::string& origin);

}  // namespace ge::onnx_import
