// Runs one kernel on host tensors, outside any plan: constant folding
// evaluates nodes this way at compile time. (Dynamic models run their nodes
// in a RunFrame instead, on pooled buffers: runtime/dynamic/run_frame.h.)
#pragma once

#include <vector>

#include "device/kernel.h"
#include "ge/tensor.h"

namespace ge::runtime {

// `node` gives the output dtypes and (static) shapes the kernel was built for;
// `inputs` follow the node's inputs (an empty Tensor for an absent optional
// one). An output the kernel declares a view of an input shares that input's
// buffer; every other output is a fresh buffer. Kernel errors propagate.
std::vector<Tensor> RunKernelOnHost(const device::Kernel& kernel, const Node& node, const std::vector<Tensor>& inputs);

}  // namespace ge::runtime
