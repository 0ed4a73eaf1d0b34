// Multi-stream scheduling: which stream each step runs on, and the events
// that order steps on different streams.
//
// Streams follow the graph's branches: a step continues the stream of a
// producer whose stream it would otherwise leave idle (the producer is that
// stream's latest step); every other step opens a new stream, up to the
// maximum, after which it joins the stream whose latest step is oldest. Within
// a stream steps run in step order. A step waits for a producer on another
// stream through an event, unless that order already follows from its stream
// and its other events (the redundant event is pruned).
//
// Happens-before is tracked with vector clocks: for each step and stream,
// the latest step of that stream known to be finished when the step starts.
#pragma once

#include <vector>

#include "runtime/execution_plan.h"

namespace ge::runtime {

// Sets impl.stream_count and every step's stream and waits from
// impl.settings (ge.enableSingleStream, ge.streamMaxParallelNum).
void AssignStreams(CompiledModel::Impl& impl);

// The happens-before relation of the steps given their streams and waits.
class StepOrder {
 public:
  StepOrder(const std::vector<Step>& steps, int stream_count);
  // Step a has finished whenever step b starts (false for a == b).
  bool HappensBefore(int a, int b) const;

 private:
  int streams_;
  std::vector<int> stream_;
  std::vector<int> clock_;  // steps x streams
};

// Checks stored streams and events (from a model file): streams in range,
// events from an earlier step on another stream, and every data or control
// dependency ordered by them, so a run neither races nor deadlocks. Throws
// ge::Error (kInvalidModel) naming the node.
void CheckStreams(const CompiledModel::Impl& impl);

// Steps that some step on another stream waits for.
std::vector<bool> EventSources(const std::vector<Step>& steps);

}  // namespace ge::runtime
