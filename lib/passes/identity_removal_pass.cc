// Removes Identity nodes: importers produce many (ONNX Identity, Dropout in
// inference), and each would otherwise cost a copy or at least an alias.
//
// Graph outputs are looked up by name, so an Identity is kept when bypassing
// it would lose a user-visible name: when its input is a graph input (both
// names are public) or already a graph output (one value cannot carry two
// output names).
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"

namespace ge::passes {
namespace {

bool IsGraphInput(const Value* value) {
  return value->producer() != nullptr && value->producer()->op_type() == "Data";
}

bool CanBypass(const Graph& graph, const Node& identity) {
  const Value* input = identity.input(0);
  if (input == nullptr || identity.num_inputs() != 1 || identity.num_outputs() != 1) return false;
  if (!IsGraphOutput(graph, identity.output(0))) return true;
  return !IsGraphInput(input) && !IsGraphOutput(graph, input);
}

class IdentityRemovalPass : public Pass {
 public:
  std::string name() const override { return "identity_removal"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    std::unordered_set<const Node*> control_dependents = NodesWithControlDependents(graph);
    bool changed = false;
    for (Node* node : graph.TopologicalOrder()) {
      if (node->op_type() != "Identity" || !node->control_inputs().empty() ||
          control_dependents.count(node) != 0 || !CanBypass(graph, *node)) {
        continue;
      }
      ReplaceValue(graph, node->output(0), node->input(0));
      graph.RemoveNode(node);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeIdentityRemovalPass() { return std::make_unique<IdentityRemovalPass>(); }

}  // namespace ge::passes
