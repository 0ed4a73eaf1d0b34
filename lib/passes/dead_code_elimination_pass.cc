// Removes nodes no graph output depends on (folded-away constants, unused
// branches) so that they are neither planned nor shipped in the model file.
#include "passes/builtin_passes.h"

namespace ge::passes {
namespace {

class DeadCodeEliminationPass : public Pass {
 public:
  std::string name() const override { return "dead_code_elimination"; }
  bool Run(Graph& graph, PassContext& ctx) override { return graph.RemoveDeadNodes() > 0; }
};

}  // namespace

std::unique_ptr<Pass> MakeDeadCodeEliminationPass() { return std::make_unique<DeadCodeEliminationPass>(); }

}  // namespace ge::passes
