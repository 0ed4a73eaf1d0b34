// The compile pipeline: graph + options -> the immutable CompiledModel::Impl.
#pragma once

#include <memory>

#include "device/device.h"
#include "runtime/execution_plan.h"

namespace ge::runtime {

// Parses the options, runs the built-in passes (constant folding through the
// CPU kernels), verifies the result, requires dtypes, and then, when every
// shape is static, picks a kernel per node, orders the steps and plans memory;
// otherwise makes the model dynamic (MakeDynamic). Throws ge::Error.
std::unique_ptr<CompiledModel::Impl> CompileGraph(std::unique_ptr<Graph> graph, const Options& options);

// Finishes impl (graph, options and settings set) as a dynamic model over
// `nodes`, a topological order of impl.graph: values numbered, constants
// counted, no plan. The compiler and the .gem loader both end this way.
void MakeDynamic(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes);

}  // namespace ge::runtime
