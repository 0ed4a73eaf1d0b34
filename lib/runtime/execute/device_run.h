// One run of a planned model on a device with memory of its own (an NPU):
// the host enqueues every step on its plan stream (one device stream per plan
// stream), records an event after each step another stream waits for and
// makes the waiting stream wait on it, so the device runs the multi-stream
// plan unchanged. Inputs are copied in and outputs out with asynchronous
// copies on the streams that use or produce them; the activation arena is
// one device arena per run.
#pragma once

#include <vector>

#include "runtime/execution_plan.h"

namespace ge::runtime {

std::vector<Tensor> RunOnDevice(const CompiledModel::Impl& impl, const std::vector<Tensor>& inputs);

}  // namespace ge::runtime
