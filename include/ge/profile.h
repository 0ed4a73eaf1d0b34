// What one run did, step by step: CompiledModel::Run(inputs, &profile) fills
// it (`ge run --profile trace.json` turns it into a Chrome trace). Profiling
// costs two clock reads per step; runs without a profile pay nothing.
#pragma once

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

struct GE_API RunProfile {
  double total_us = 0;
  std::vector<StepProfile> steps;  // by start time
};

}  // namespace ge
