#include "graph_queries.h"

#include <catch2/catch.hpp>

namespace ge::test {

size_t CountOps(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

const Node& NodeNamed(const Graph& graph, const std::string& name) {
  const Node* node = graph.FindNode(name);
  INFO("node " << name);
  REQUIRE(node != nullptr);
  return *node;
}

}  // namespace ge::test
