// Guards around ONNX's own per-op shape inference functions.
//
// ONNX shape inference (onnx::shape_inference::InferShapes) runs each op's
// inference function on the input types it has propagated so far, and those
// functions index dims by attributes they do not always bound: a
// LayerNormalization whose axis is 2^31, or a ConvTranspose over a rank-2
// input, reads out of bounds inside libonnx. CheckAttributeRanges
// (onnx_attribute_ranges.h) can only check what the model declares; these
// guards see the ranks ONNX has inferred for every node's inputs, intermediate
// values included, and stop a node's inference before it runs on values it
// cannot take. A stopped node's outputs stay untyped (ONNX treats the failure
// like any other inference failure of one node) and ge's own shape inference,
// which checks the same attributes, refuses the model by name later.
#pragma once

#include <onnx/defs/schema.h>

namespace ge::onnx_import {

// ONNX's schema registry with every op's inference function wrapped in the
// guards. Pass it to onnx::shape_inference::InferShapes.
const onnx::ISchemaRegistry& GuardedSchemaRegistry();

}  // namespace ge::onnx_import
