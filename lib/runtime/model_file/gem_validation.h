// Load-time validation of what a .gem file claims. The file's checksum only
// catches accidents (truncation, flipped bits, a wrong file): it is public and
// unkeyed, so an edited file can carry a correct one. These checks make sure
// that no file content, however edited, makes a load or a run touch memory
// outside its buffers or work without bound; a tampered file that is
// consistent in itself still loads and may compute other numbers.
// docs/model-file.md describes the threat model. Each check throws one
// ge::Error (kInvalidModel) naming the node or value and what is inconsistent.
#pragma once

#include <cstdint>

#include "ge/graph.h"
#include "runtime/execution_plan.h"

namespace ge::runtime {

// Before any kernel is built from the graph: runs every node's own shape and
// dtype inference, in the file's (topological) order, and requires the
// output dtypes and shapes the file stores, since the kernels are built from
// those. An edited dim, or an attribute the stored shapes do not follow from
// (a pooling window of INT32_MAX), is refused here, as are the attribute
// ranges the schemas' inference checks. An unknown stored dim (a dynamic
// model) accepts any inferred one and stays unknown. Then every value's byte
// size must stay within `max_tensor_bytes` (ge.maxTensorBytes). Expects
// VerifyGraph to have passed (op types, arity, attribute types, dtypes).
void ValidateLoadedGraph(Graph& graph, uint64_t max_tensor_bytes);

// The stored plan against the graph and the kernels built for it, before
// GrowWorkspaces: every value fits its storage (CheckStorage), there are no
// more streams than steps, streams and events are in range and order the
// steps (CheckStreams), no workspace is
// above `max_tensor_bytes`, the arena is no larger than everything the
// plan places in it side by side (a larger one would only be an allocation
// the file asks for without using it), and no two values or workspaces in
// use at once share bytes (CheckPlacement).
void ValidateLoadedPlan(const CompiledModel::Impl& impl, uint64_t max_tensor_bytes);

}  // namespace ge::runtime
