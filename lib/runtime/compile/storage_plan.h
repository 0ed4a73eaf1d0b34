// Storage of every value of a laid-out model (see model_layout.h): graph
// inputs and constants stay where they are, views share the bytes of what
// they view, graph outputs are written straight into the run's output
// tensors, and everything else (with the kernels' workspaces) goes into the
// arena as placed by the memory planner.
#pragma once

#include "runtime/execution_plan.h"

namespace ge::runtime {

// Fills impl.storage, each step's workspace_offset and impl.memory. Streams
// must be assigned (AssignStreams): bytes are reused across streams only
// where events order the uses. Elementwise steps write over an input at its
// last use (in-place execution).
void PlanStorage(CompiledModel::Impl& impl);

// A kernel rebuilt when loading a model file may need more scratch memory
// than the stored plan gave it (oneDNN sizes scratchpads by the core count).
// Those workspaces move to regions appended to the arena, one per stream,
// which the stream's steps share since each lives for one step and a stream
// runs one step at a time; the rest of the plan stays as stored.
void GrowWorkspaces(CompiledModel::Impl& impl);

// Checks a stored plan (from a model file) against the model's values,
// steps and kernels (before GrowWorkspaces), so that no run reads or writes outside its buffers or
// into inputs and constants. Throws ge::Error (kInvalidModel) naming the
// value or node.
void CheckStorage(const CompiledModel::Impl& impl);

// Checks that no two buffers of a stored plan (values and workspaces) that
// are in use at once share arena bytes: a kernel's scratch written over a
// value it reads, or two streams writing the same bytes. Expects CheckStorage
// and valid stream indices and events. Throws ge::Error (kInvalidModel)
// naming both.
void CheckPlacement(const CompiledModel::Impl& impl);

// Bytes of a value with a static shape.
size_t ValueBytes(const Value& value);

}  // namespace ge::runtime
