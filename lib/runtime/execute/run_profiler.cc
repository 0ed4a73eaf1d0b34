#include "runtime/execute/run_profiler.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "ge/plan_summary.h"

namespace ge::runtime {
namespace {

double MicrosecondsBetween(ProfileClock::time_point from, ProfileClock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

void EraseAll(std::string& text, const std::string& part) {
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part)) text.erase(at, part.size());
}

}  // namespace

StepProfile ProfileStep(const Node& node, std::string kernel, int stream, ProfileClock::time_point run_start,
                        ProfileClock::time_point start, size_t live_bytes) {
  const auto end = ProfileClock::now();
  StepProfile step;
  step.node = node.name();
  step.op_type = node.op_type();
  step.kernel = std::move(kernel);
  step.stream = stream;
  step.start_us = MicrosecondsBetween(run_start, start);
  step.duration_us = MicrosecondsBetween(start, end);
  for (const Value* input : node.inputs()) {
    if (input != nullptr) step.input_shapes.push_back(input->shape());
  }
  for (const Value* output : node.outputs()) step.output_shapes.push_back(output->shape());
  step.live_bytes = live_bytes;
  return step;
}

void FinishProfile(RunProfile& profile, ProfileClock::time_point run_start) {
  std::stable_sort(profile.steps.begin(), profile.steps.end(),
                   [](const StepProfile& a, const StepProfile& b) { return a.start_us < b.start_us; });
  profile.total_us = MicrosecondsBetween(run_start, ProfileClock::now());
}

std::string KernelName(const device::Kernel& kernel) {
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(typeid(kernel).name(), nullptr, nullptr, &status), &std::free);
  std::string name = status == 0 && demangled ? demangled.get() : typeid(kernel).name();
  EraseAll(name, "(anonymous namespace)::");
  EraseAll(name, "ge::device::cpu::");
  EraseAll(name, "ge::device::");
  EraseAll(name, "ge::");
  return "cpu/" + name;
}

std::vector<size_t> PlannedLiveBytes(const CompiledModel& model) {
  const PlanSummary plan = SummarizePlan(model);
  std::vector<std::vector<std::pair<size_t, size_t>>> ranges(plan.steps.size());  // by step: [begin, end) bytes
  for (const PlannedBuffer& buffer : plan.buffers) {
    for (int s = buffer.first_step; s <= buffer.last_step && s < static_cast<int>(ranges.size()); ++s) {
      ranges[static_cast<size_t>(s)].emplace_back(buffer.offset, buffer.offset + buffer.bytes);
    }
  }
  // The union of the ranges: an in-place output shares its input's bytes.
  std::vector<size_t> live(plan.steps.size(), 0);
  for (size_t s = 0; s < ranges.size(); ++s) {
    std::sort(ranges[s].begin(), ranges[s].end());
    size_t covered_to = 0;
    for (const auto& [begin, end] : ranges[s]) {
      if (end > std::max(begin, covered_to)) live[s] += end - std::max(begin, covered_to);
      covered_to = std::max(covered_to, end);
    }
  }
  return live;
}

}  // namespace ge::runtime
