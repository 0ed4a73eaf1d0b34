// Graph surgery shared by the built-in passes: replacing values while keeping
// the names users see on graph outputs, turning a node into constants, and the
// questions passes ask before touching a node.
#pragma once

#include <optional>
#include <unordered_set>
#include <vector>

#include "ge/graph.h"
#include "passes/pass.h"

namespace ge::passes {

bool IsGraphOutput(const Graph& graph, const Value* value);

// The attribute, or its schema default when inference has not filled it in;
// nullptr when neither exists.
const AttrValue* AttrOrDefault(const Node& node, const std::string& name);

// Rewires every use of `from` (and its graph-output slots) to `to`. When
// `from` is a graph output, `to` takes over its name so that the outputs keep
// the names callers look them up by; `from` gets a fresh internal name.
void ReplaceValue(Graph& graph, Value* from, Value* to);

// Replaces every output of `node` by a Const holding the matching tensor and
// removes the node. The tensors must match the outputs' dtypes and shapes
// where those are known (throws kInternal naming the node otherwise).
void ReplaceWithConstants(Graph& graph, Node* node, std::vector<Tensor> values);

// Nodes that some other node lists as a control input; removing them would
// drop an ordering constraint, so passes leave them alone.
std::unordered_set<const Node*> NodesWithControlDependents(const Graph& graph);

// True for a node that computes something from constants alone: it has at
// least one input, every present input is produced by a Const, and it is not
// itself a Data or Const node.
bool IsFoldable(const Node& node);

// Evaluates a foldable node through the evaluator: the inputs in node order,
// an absent optional input as an empty Tensor. nullopt when the evaluator
// cannot run the node.
std::optional<std::vector<Tensor>> EvaluateOnConstants(const Node& node, ConstantEvaluator& evaluator);

}  // namespace ge::passes
