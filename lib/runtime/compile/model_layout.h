// The part of a CompiledModel that follows from the graph alone: value ids,
// constants, graph inputs/outputs and the steps with their kernels. The
// compiler and the .gem loader both build it this way; they differ in where
// the node order and the storage plan come from.
#pragma once

#include <vector>

#include "device/device.h"
#include "runtime/execution_plan.h"

namespace ge::runtime {

// The graph-only part: numbers the values (the outputs of `nodes`, in order),
// collects the constants and the graph inputs/outputs. Dynamic models stop
// here; LayOutModel starts with it.
void NumberValues(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes);

// `nodes`: every node of impl.graph in a topological order. `step_nodes`:
// indices into `nodes` of the nodes to run, in execution order (no Data or
// Const). Kernels run the mode each node records (impl_mode pass). With
// `release_packed`, each constant's bytes are freed once the kernels of all
// its uses packed it (packed_constants.h); kernels cannot be rebuilt after.
// Throws ge::Error (kInvalidModel) when step_nodes is not a valid execution
// order, and the kernel selection errors.
void LayOutModel(CompiledModel::Impl& impl, const device::Device& device, std::vector<const Node*> nodes,
                 const std::vector<size_t>& step_nodes, bool release_packed = false);

// Builds every step's kernel again (and its workspace size), under the
// calling thread's current OpenMP team size: kernels of a multi-stream plan
// are made for their stream's share of the threads (StreamTeamSize).
void RebuildKernels(CompiledModel::Impl& impl, const device::Device& device);

// The steps of a graph in topological order: every node but Data and Const.
std::vector<size_t> DefaultStepNodes(const std::vector<const Node*>& nodes);

}  // namespace ge::runtime
