#include "ge/plan_summary.h"

#include <algorithm>

#include "runtime/execution_plan.h"

namespace ge {
namespace {

size_t ValueBytes(const Value& value) {
  return static_cast<size_t>(value.shape().NumElements()) * DataTypeSize(value.dtype());
}

// The last step that reads each value's bytes, directly or through a view of
// it; graph outputs live to the end of the run. -1 when nothing reads it.
std::vector<int> LastReaders(const CompiledModel::Impl& impl) {
  std::vector<int> last(impl.values.size(), -1);
  const int end = static_cast<int>(impl.steps.size()) - 1;
  for (int s = 0; s <= end; ++s) {
    for (int input : impl.steps[s].inputs) {
      if (input >= 0) last[input] = std::max(last[input], s);
    }
  }
  for (int output : impl.output_values) last[output] = end;
  // A view keeps the value it views alive; later views come later in step order.
  for (int s = end; s >= 0; --s) {
    const runtime::Step& step = impl.steps[s];
    if (!step.is_view) continue;
    for (size_t i = 0; i < step.outputs.size(); ++i) {
      const int viewed = step.inputs[step.kernel->AliasedInput(i)];
      last[viewed] = std::max(last[viewed], last[step.outputs[i]]);
    }
  }
  return last;
}

}  // namespace

PlanSummary SummarizePlan(const CompiledModel& model) {
  const CompiledModel::Impl& impl = model.impl();
  PlanSummary summary;
  summary.dynamic = impl.dynamic != nullptr;
  summary.const_bytes = impl.memory.const_bytes;
  summary.feature_bytes = impl.memory.arena_bytes;
  summary.stream_count = std::max(impl.stream_count, 1);
  summary.outputs = impl.outputs;
  if (summary.dynamic) return summary;

  for (const runtime::Step& step : impl.steps) {
    PlannedStep planned{step.node->name(), step.node->op_type(), step.stream, {}, {}, static_cast<int>(step.waits.size())};
    for (int input : step.inputs) {
      if (input >= 0) planned.inputs.push_back(impl.values[input]->name());
    }
    for (int output : step.outputs) planned.outputs.push_back(impl.values[output]->name());
    summary.event_count += planned.waits;
    summary.steps.push_back(std::move(planned));
  }

  const std::vector<int> last = LastReaders(impl);
  for (size_t s = 0; s < impl.steps.size(); ++s) {
    const runtime::Step& step = impl.steps[s];
    if (step.is_view) continue;  // its bytes are the viewed value's
    for (int output : step.outputs) {
      const runtime::Storage& storage = impl.storage[output];
      if (storage.kind != runtime::StorageKind::kArena) continue;
      const int first = static_cast<int>(s);
      summary.buffers.push_back({impl.values[output]->name(), storage.offset, ValueBytes(*impl.values[output]), first,
                                 std::max(first, last[output])});
    }
  }
  return summary;
}

}  // namespace ge
