// The pieces the executors use to fill a RunProfile (ge/profile.h).
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "ge/compiled_model.h"
#include "ge/profile.h"

namespace ge::runtime {

using ProfileClock = std::chrono::steady_clock;

// A step that started at `start` and ends now; shapes from the node's values
// (which carry a dynamic run's own shapes).
StepProfile ProfileStep(const Node& node, std::string kernel, int stream, ProfileClock::time_point run_start,
                        ProfileClock::time_point start, size_t live_bytes);

// Orders the steps by start time and sets the total.
void FinishProfile(RunProfile& profile, ProfileClock::time_point run_start);

// The kernel's class, without namespaces: "cpu/ConvKernel", "cpu/UnaryKernel<float>".
std::string KernelName(const device::Kernel& kernel);

// Activation bytes live at each step of a planned model (what the arena
// holds for the values whose lifetimes cover the step).
std::vector<size_t> PlannedLiveBytes(const CompiledModel& model);

}  // namespace ge::runtime
