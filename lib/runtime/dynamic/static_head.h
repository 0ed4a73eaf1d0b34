// The statically shaped head of a dynamic model compiled for one input-shape
// signature.
//
// Compiled for the shapes of one run's inputs, most models become static and
// get a plan (plan_cache.h). Those that stay dynamic have some shape that
// depends on data (NonZero, a Reshape to computed values) or a control-flow
// node; but the nodes before it, every input shape known, are static. This
// finds that head (the nodes whose inputs and outputs all have static shapes
// and that depend on no dynamic node), and rewrites the graph with the head
// as one PartitionedCall node holding it as its subgraph: the runtime
// compiles the subgraph as a static model (fusions, kernels, a planned
// arena) and runs the rest node by node (dynamic_executor.h).
#pragma once

#include <memory>

#include "ge/graph.h"

namespace ge::runtime {

// `specialized`, its graph inputs static, rewritten as described above; null
// when the head has fewer nodes than the rest (a model whose control flow or
// data-dependent shapes come early gains too little from a compile) or is
// the whole graph.
std::unique_ptr<Graph> SplitStaticHead(const Graph& specialized);

}  // namespace ge::runtime
