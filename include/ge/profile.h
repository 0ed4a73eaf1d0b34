// What one run did, step by step: CompiledModel::Run(inputs, &profile) fills
// it (`ge run --profile trace.json` turns it into a Chrome trace). Profiling
// costs two clock reads per step; runs without a profile pay nothing.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ge/export.h"
#include "ge/shape.h"

namespace ge {

struct GE_API StepProfile {
  std::string node;
  std::string op_type;
  std::string kernel;  // the kernel's implementation, e.g. "cpu/ConvKernel"; "view" for a step that runs nothing
  int stream = 0;
  double start_us = 0;  // since the run began
  double duration_us = 0;
  std::vector<Shape> input_shapes;  // absent optional inputs left out
  std::vector<Shape> output_shapes;
  size_t live_bytes = 0;  // activation bytes live while the step runs (the planned ones, or a dynamic run's tensors)
};

// What a model's runs did besides running kernels, counted since it was
// compiled or loaded (CompiledModel::run_stats). A static model runs its
// plan every time; a dynamic one (docs/runtime.md, "Dynamic models") runs
// node by node, building kernels and tensor buffers only for shapes it has
// not met, or a static plan it compiled for a repeated input-shape signature.
// A steady state adds runs and nothing else.
struct GE_API RunStats {
  uint64_t runs = 0;
  uint64_t planned_runs = 0;        // runs of a static plan (a dynamic model's per-shape plans included)
  uint64_t node_by_node_runs = 0;   // a dynamic model's runs without a plan
  uint64_t plans_compiled = 0;      // static plans a dynamic model compiled for input-shape signatures
  uint64_t kernels_built = 0;       // kernels built during runs (dynamic models)
  uint64_t buffer_allocations = 0;  // activation memory taken from the system: arenas, or a dynamic
                                    // model's tensor buffers
  uint64_t shape_inferences = 0;    // node-by-node steps whose output shapes a schema inferred: those
                                    // neither computed from symbolic dims nor repeating their last shapes
};

struct GE_API RunProfile {
  double total_us = 0;
  std::vector<StepProfile> steps;  // by start time
};

}  // namespace ge
