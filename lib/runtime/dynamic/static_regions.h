// The statically shaped regions of a dynamic model compiled for one
// input-shape signature.
//
// Compiled for the shapes of one run's inputs, most models become static and
// get a plan (plan_cache.h). Those that stay dynamic have some shape that
// depends on data (NonZero, a Reshape to computed values) or a control-flow
// node (If, Loop, Scan, sequences); the nodes around them whose shapes are
// all known are static all the same. This groups those nodes into regions
// and rewrites the graph with each region as one PartitionedCall node
// holding it as its subgraph: the runtime compiles each subgraph as a static
// model (fusions, kernels, a planned arena), and runs the dynamic nodes
// between them node by node (dynamic_executor.h). A control-flow node is
// thus planned around: the region before an If and the one after it (when
// the If's branches give one shape) each run through their plan.
//
// A static node's region is its level: the most dynamic nodes on any path to
// it. Nodes of one level form a convex set (a path leaving it through a
// dynamic node cannot come back to the same level), so each region can run
// as one step.
#pragma once

#include <memory>

#include "ge/graph.h"

namespace ge::runtime {

// `specialized`, its graph inputs static, rewritten as described above; null
// when the regions hold fewer nodes than the dynamic rest (a model whose
// control flow or data-dependent shapes come early, with nothing static after
// them, gains too little from a compile) or nothing is dynamic.
std::unique_ptr<Graph> SplitStaticRegions(const Graph& specialized);

}  // namespace ge::runtime
