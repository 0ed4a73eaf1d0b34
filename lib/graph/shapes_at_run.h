// The contract between a dynamic model's runtime (lib/runtime/dynamic) and
// the kernel factories (lib/device): the runtime builds a node's kernel from
// a copy of the node with one run's shapes, marked with this attribute. A
// factory that offers a kernel taking its shapes at run time
// (device::Kernel::TakesShapesAtRun) then prefers it, even where a kernel
// specialized to the shapes would be faster at those shapes alone: the
// runtime reuses it at every other shape, and builds and holds one kernel
// (one copy of the packed weights) instead of one per shape. Static models
// never carry the attribute. The leading underscore marks it ge-internal.
#pragma once

#include "ge/graph.h"

namespace ge {

inline constexpr const char* kShapesAtRunAttr = "_shapes_at_run";

inline bool BuildsForShapesAtRun(const Node& node) {
  return node.attrs().Has(kShapesAtRunAttr) && node.attrs().GetBool(kShapesAtRunAttr);
}

// Set beside kShapesAtRunAttr when the model keeps its weights only packed
// (ge.exec.releasePackedConstants) or was compiled with
// ge.exec.dynamicPackWeights=1: a kernel that multiplies a constant weight at
// every shape packs it once, as the static plans do, instead of reading it
// where it is. Faster at every row count; with dynamicPackWeights alone, for a
// second copy of the weights.
inline constexpr const char* kPackWeightsAttr = "_pack_weights";

inline bool PacksWeightsAtRun(const Node& node) {
  return node.attrs().Has(kPackWeightsAttr) && node.attrs().GetBool(kPackWeightsAttr);
}

}  // namespace ge
