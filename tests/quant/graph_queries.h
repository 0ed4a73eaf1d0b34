// Questions the quantization tests ask of a graph.
#pragma once

#include <cstddef>
#include <string>

#include "ge/graph.h"

namespace ge::test {

// How many nodes have this op type.
size_t CountOps(const Graph& graph, const std::string& op_type);

// The node with this name; the test fails (REQUIRE) when there is none.
const Node& NodeNamed(const Graph& graph, const std::string& name);

}  // namespace ge::test
