// The compile pipeline: graph + options -> the immutable CompiledModel::Impl.
#pragma once

#include <memory>

#include "device/device.h"
#include "runtime/execution_plan.h"

namespace ge::runtime {

// Whether the pipeline runs the target device's own rewrites
// (PassStage::kDevice). Quantization and layer comparison skip them: they
// work on the device-independent graph, whose values keep their names and layouts.
enum class DeviceRewrites { kRun, kSkip };

// Parses the options, runs the built-in passes (constant folding through the
// CPU kernels) and the device's rewrites, verifies the result, requires
// dtypes, and then, when every shape is static, picks a kernel per node,
// orders the steps and plans memory; otherwise makes the model dynamic
// (MakeDynamic). Throws ge::Error.
std::unique_ptr<CompiledModel::Impl> CompileGraph(std::unique_ptr<Graph> graph, const Options& options,
                                                  DeviceRewrites device_rewrites = DeviceRewrites::kRun);

// Finishes impl (graph, options and settings set) as a dynamic model over
// `nodes`, a topological order of impl.graph: values numbered, constants
// counted, no plan. The compiler and the .gem loader both end this way.
void MakeDynamic(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes);

}  // namespace ge::runtime
