// The ge.maxTensorBytes cap: a model's claimed shapes are checked at compile
// time, so that a dim of 2^62 is one clean error rather than a size that
// wrapped to 0 and kernels that write past their buffers at run time.
#pragma once

#include <cstdint>
#include <string_view>

#include "ge/graph.h"

namespace ge::runtime {

// Throws kInvalidModel naming the node, the value, its shape and dtype, and
// the cap, when `value` (an output of `node`) has a static shape whose byte
// size exceeds max_bytes or does not fit int64. Unknown shapes pass.
void CheckTensorSize(const Node& node, const Value& value, uint64_t max_bytes);
// The same for output `name` of `node` with the shape and dtype one run gave it.
void CheckTensorSize(const Node& node, std::string_view name, const Shape& shape, DataType dtype, uint64_t max_bytes);

// CheckTensorSize for every value of the graph.
void CheckTensorSizes(const Graph& graph, uint64_t max_bytes);

}  // namespace ge::runtime
