// The layout rule of BatchNorm and InstanceNorm, shared by their op schemas
// and their CPU kernels: x is [N, C, spatial...] in data_format "NCHW" (of
// rank 2 or more; 3 or more for InstanceNorm, which normalizes over the
// spatial dims), each parameter input (BatchNorm's scale, offset, mean and
// variance; InstanceNorm's gamma and beta) is [C] of x's dtype, and BatchNorm
// is_training is false. A .gem load re-runs the schemas' checks and
// inference, but a kernel checks the rule again: it indexes the parameters by
// channel, and a node can reach it without that inference or with what it
// left unknown (ge.disablePasses=infer_shape; a dtype known only at run time,
// which CheckDtypes skipped; a test's node).
#pragma once

#include <cstdint>

#include "ge/graph.h"

namespace ge {

// Whether dims and dtypes not known yet pass (inference) or fail (a kernel).
enum class NormUnknowns { kPass, kFail };

// Checks the rule and returns C (Shape::kUnknownDim while unknown). Throws
// ge::Error naming the node, the input, and the expected and actual.
int64_t CheckChannelNorm(const Node& node, NormUnknowns unknowns);

}  // namespace ge
