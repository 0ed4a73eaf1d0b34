// One run of a compiled model, the body of CompiledModel::Run and RunInto
// (executor.cc), for the runtime's own callers (a dynamic model's static
// plans).
#pragma once

#include <vector>

#include "ge/compiled_model.h"
#include "ge/profile.h"

namespace ge::runtime {

// `direct` is empty, or holds one slot per output: a buffer the run writes
// that output into (checked by CheckOutputBuffers, overlapping no input,
// output_binding.h) or an empty Tensor. Outputs the run cannot write in
// place come back in buffers of their own; DeliverIntoBuffers copies them.
std::vector<Tensor> RunModel(const CompiledModel& model, const std::vector<Tensor>& inputs,
                             const std::vector<Tensor>& direct, RunProfile* profile);

}  // namespace ge::runtime
