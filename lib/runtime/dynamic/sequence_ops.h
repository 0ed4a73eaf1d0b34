// Sequences and optionals at run time (graph/ops/sequence_ops.cc). Their
// values are Tensors of dtype kSequence or kOptional that hold their
// elements (ge/tensor.h), so these ops run on whole values, outside kernels,
// through ControlFlowOp's interface, as If and Loop do; a model holding one
// runs dynamically. Elements are shared, never written: a sequence op makes
// new containers, and copies only elements that live in a run's pooled
// buffers (a tensor that does not own its memory).
#pragma once

#include <memory>

#include "ge/graph.h"
#include "ge/options.h"
#include "runtime/dynamic/control_flow.h"

namespace ge::runtime {

// Whether `node` runs here: a sequence or optional op, or an Identity of a
// sequence or optional.
bool IsSequenceOp(const Node& node);

// `value` as a run may hand it out: a container whose elements (at any
// depth) all own their memory is shared; one holding tensors over a run's
// pooled buffers or the caller's input memory is rebuilt with copies of those.
Tensor OwnedValue(const Tensor& value);

// Throws ge::Error naming the node when SequenceMap's body does not compile.
std::unique_ptr<ControlFlowOp> CreateSequenceOp(const Node& node, const Options& options);

}  // namespace ge::runtime
