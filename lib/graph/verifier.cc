#include "graph/verifier.h"

#include <fmt/core.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "graph/op_schema.h"

namespace ge {
namespace {

[[noreturn]] void FailNode(const Node& node, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {}", node.Describe(), message));
}

// Pointer sets of what the graph owns. Membership is tested before any
// pointer taken from a node is dereferenced, so a dangling pointer to a
// removed value is reported instead of followed.
struct Ownership {
  std::unordered_set<const Node*> nodes;
  std::unordered_set<const Value*> values;
};

Ownership CollectOwnership(const Graph& graph) {
  Ownership owned;
  for (const Node* node : graph.nodes()) {
    owned.nodes.insert(node);
    for (const Value* value : node->outputs()) owned.values.insert(value);
  }
  return owned;
}

void VerifyEdges(const Graph& graph, const Node& node, const Ownership& owned) {
  if (node.graph() != &graph) FailNode(node, "belongs to another graph");
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const Value* value = node.input(i);
    if (value == nullptr) continue;
    if (owned.values.count(value) == 0) {
      FailNode(node, fmt::format("input {} refers to a value that is not in graph '{}' (removed, or from another "
                                 "graph)",
                                 i, graph.name()));
    }
    const Use use{const_cast<Node*>(&node), static_cast<int>(i)};
    if (std::find(value->uses().begin(), value->uses().end(), use) == value->uses().end()) {
      FailNode(node,
               fmt::format("input {} reads value '{}' whose use list does not record this use", i, value->name()));
    }
  }
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    const Value* value = node.output(i);
    if (value->producer() != &node || value->producer_output() != static_cast<int>(i)) {
      FailNode(node, fmt::format("output {} '{}' does not name this node as its producer", i, value->name()));
    }
    for (const Use& use : value->uses()) {
      if (owned.nodes.count(use.node) == 0 || use.node->input(use.input_index) != value) {
        FailNode(node, fmt::format("output '{}' lists a use (input {} of a node) that does not read it", value->name(),
                                   use.input_index));
      }
    }
  }
  for (const Node* control : node.control_inputs()) {
    if (owned.nodes.count(control) == 0) FailNode(node, "has a control input from a node not in the graph");
  }
}

void VerifySchema(const Node& node, const VerifyOptions& options) {
  const OpSchema* schema = OpRegistry::Global().Find(node.op_type());
  if (schema == nullptr) {
    if (options.allow_unknown_ops) return;
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: unknown op type '{}' (not in the op registry; see docs/op-set.md)", node.Describe(),
                            node.op_type()));
  }
  schema->CheckArity(node);
  schema->CheckAttrs(node);
  if (options.check_dtypes) schema->CheckDtypes(node);
}

// Graph inputs are numbered 0..n-1 by their Data nodes' index attribute.
void VerifyDataIndices(const Graph& graph) {
  std::map<int64_t, const Node*> by_index;
  for (const Node* node : graph.nodes()) {
    if (node->op_type() != "Data") continue;
    const AttrValue* index = node->attrs().Find("index");
    if (index == nullptr || TypeOf(*index) != AttrType::kInt) continue;  // reported by the schema check
    auto [it, inserted] = by_index.emplace(std::get<int64_t>(*index), node);
    if (!inserted) {
      FailNode(*node, fmt::format("graph input index {} is also used by node '{}'", it->first, it->second->name()));
    }
  }
  int64_t expected = 0;
  for (const auto& [index, node] : by_index) {
    if (index != expected) {
      FailNode(*node,
               fmt::format("graph input index {} leaves a gap: indices must be 0..{}", index, by_index.size() - 1));
    }
    ++expected;
  }
}

}  // namespace

void VerifyGraph(const Graph& graph, const VerifyOptions& options) {
  const Ownership owned = CollectOwnership(graph);
  for (const Node* node : graph.nodes()) VerifyEdges(graph, *node, owned);
  for (size_t i = 0; i < graph.outputs().size(); ++i) {
    const Value* output = graph.outputs()[i];
    if (output == nullptr || owned.values.count(output) == 0) {
      throw Error(ErrorCode::kInvalidModel,
                  fmt::format("graph '{}': output {} is not a value produced in the graph", graph.name(), i));
    }
  }
  graph.TopologicalOrder();  // throws naming a node on a cycle
  for (const Node* node : graph.nodes()) VerifySchema(*node, options);
  VerifyDataIndices(graph);
}

}  // namespace ge
