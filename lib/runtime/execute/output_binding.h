// Output buffers a caller binds to a run (CompiledModel::RunInto, IoBinding):
// the checks every tier shares and the copy for buffers a run cannot write
// in place.
//
// A bound buffer is written where the run would otherwise allocate the
// output: by the kernel that produces it (static plans, the node-by-node
// path) or by a copy at the end (ACL devices, outputs that are views of an
// input or a constant, control-flow results). A buffer that overlaps an
// input is always written by that copy, after every kernel has read the
// input: that is what lets a caller bind a recurrent state (an LSTM's h and
// c) as both the input and the output of a run and have it updated in place.
#pragma once

#include <vector>

#include "ge/compiled_model.h"
#include "ge/tensor.h"

namespace ge::runtime {

// Checks the buffers before anything runs: one slot per output (an empty
// Tensor leaves that output to ge), each of the output's dtype and of a
// shape the output's known dims accept, with data unless it is empty, and
// no two overlapping. Throws ge::Error (kInvalidArgument) naming the output.
void CheckOutputBuffers(const std::vector<TensorInfo>& outputs, const std::vector<Tensor>& buffers);

// The buffers a run may write while it runs: `buffers` less those that
// overlap an input (empty slots there).
std::vector<Tensor> DirectOutputBuffers(const std::vector<Tensor>& buffers, const std::vector<Tensor>& inputs);

// Throws ge::Error (kInvalidArgument) naming the output when this run's
// output (`dtype`, `shape`) does not fit its bound buffer exactly.
void CheckBoundShape(const TensorInfo& output, const Tensor& buffer, DataType dtype, const Shape& shape);

// Copies every result that is not already in its bound buffer into it (after
// CheckBoundShape); the bound tensors then stand for those results.
void DeliverIntoBuffers(const std::vector<TensorInfo>& outputs, std::vector<Tensor> buffers,
                        std::vector<Tensor>& results);

}  // namespace ge::runtime
