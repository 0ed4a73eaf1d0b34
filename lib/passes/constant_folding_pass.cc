// Folds every node computed from constants alone (any size), so that the
// runtime neither plans memory for nor runs work that has one fixed answer.
// Nodes are visited in topological order, so whole constant chains collapse.
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"

namespace ge::passes {
namespace {

class ConstantFoldingPass : public Pass {
 public:
  std::string name() const override { return "constant_folding"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    if (ctx.evaluator == nullptr) return false;
    std::unordered_set<const Node*> control_dependents = NodesWithControlDependents(graph);
    bool changed = false;
    for (Node* node : graph.TopologicalOrder()) {
      if (!IsFoldable(*node) || control_dependents.count(node) != 0) continue;
      if (std::optional<std::vector<Tensor>> folded = EvaluateOnConstants(*node, *ctx.evaluator)) {
        ReplaceWithConstants(graph, node, std::move(*folded));
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeConstantFoldingPass() { return std::make_unique<ConstantFoldingPass>(); }

}  // namespace ge::passes
