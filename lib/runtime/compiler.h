// The compile pipeline: graph + options -> the immutable CompiledModel::Impl.
#pragma once

#include <memory>

#include "runtime/execution_plan.h"

namespace ge::runtime {

// Parses the options, runs the built-in passes (constant folding through the
// CPU kernels), verifies the result, requires static shapes, picks a kernel
// per node, orders the steps and plans memory. Throws ge::Error.
std::unique_ptr<CompiledModel::Impl> CompileGraph(std::unique_ptr<Graph> graph, const Options& options);

}  // namespace ge::runtime
