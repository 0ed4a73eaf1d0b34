// What a compiled model does at run time, for reports and pictures (`ge info`,
// `ge viz`): the steps in execution order with their streams, and where each
// activation lives in the arena over the schedule.
#pragma once

#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"

namespace ge {

struct GE_API PlannedStep {
  std::string node;
  std::string op_type;
  int stream = 0;
  std::vector<std::string> inputs;   // value names; absent optional inputs left out
  std::vector<std::string> outputs;  // value names
  int waits = 0;                     // events from other streams it waits for
};

// One activation in the arena: live from the step that writes it to the last
// step that reads it (the end of the run for graph outputs), both inclusive.
struct GE_API PlannedBuffer {
  std::string value;
  size_t offset = 0;
  size_t bytes = 0;
  int first_step = 0;
  int last_step = 0;
};

struct GE_API PlanSummary {
  bool dynamic = false;  // shapes known only at run time: no steps, no buffers
  size_t const_bytes = 0;
  size_t feature_bytes = 0;  // the activation arena of one run
  int stream_count = 1;
  int event_count = 0;
  std::vector<TensorInfo> outputs;
  std::vector<PlannedStep> steps;      // execution order
  std::vector<PlannedBuffer> buffers;  // arena-resident values, by first step
};

GE_API PlanSummary SummarizePlan(const CompiledModel& model);

}  // namespace ge
