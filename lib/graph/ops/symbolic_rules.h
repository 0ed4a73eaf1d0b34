// The symbolic inference rules of the built-in schemas (OpSchema::InferSymbolic,
// graph/symbolic_shapes.h). Each proves what it sets: dims its op requires
// to match must be equal as expressions, or the rule sets nothing.
#pragma once

#include "graph/symbolic_shapes.h"

namespace ge::symbolic {

// y has x's dims (unary math, activations, normalizations over axes).
void SameAsInput(SymbolicContext& ctx);
// y is x: dims and integer contents (Identity, views).
void Identity(SymbolicContext& ctx);
// y has the numpy broadcast of every input's dims; for int64 Add, Sub, Mul
// and Div of known contents (shape arithmetic), the contents too.
void Broadcast(SymbolicContext& ctx);
void Cast(SymbolicContext& ctx);
void MatMul(SymbolicContext& ctx);       // MatMulV2
void BatchMatMul(SymbolicContext& ctx);  // BatchMatMulV2
void LayerNorm(SymbolicContext& ctx);
void Reduce(SymbolicContext& ctx);       // Reduce*D
void Concat(SymbolicContext& ctx);       // ConcatD, contents too
void Split(SymbolicContext& ctx);        // SplitVD
void Slice(SymbolicContext& ctx);        // StridedSliceV2, contents too
void Gather(SymbolicContext& ctx);       // GatherV2D, contents too
void Reshape(SymbolicContext& ctx);
void Squeeze(SymbolicContext& ctx);
void Unsqueeze(SymbolicContext& ctx);
void Transpose(SymbolicContext& ctx);    // TransposeD
void ShapeOf(SymbolicContext& ctx);      // Shape: contents are x's dims
void Fill(SymbolicContext& ctx);         // dims are input 0's contents
void Range(SymbolicContext& ctx);        // integer start, limit, delta
void Expand(SymbolicContext& ctx);
void Tile(SymbolicContext& ctx);
// Ops whose samples are independent (convolutions, pools, LRN): output 0 has
// x's batch dim and the graph's own static dims after it, when every dim of
// x but the batch is a constant (so the graph's inference checked the rest).
void BatchPassThrough(SymbolicContext& ctx);

}  // namespace ge::symbolic
