// Records on every node the implementation mode its kernel applies, before
// kernels are created (factories read kImplModeAttr).
//
// A requested mode is honoured only where the node's kernel (for its dtype)
// implements it. Otherwise the kernel's default applies and the reason says
// why: the kernel has a single implementation (not an error, as in GE), or
// it offers other modes. Nodes nothing asks for and whose kernel has no
// choice are left bare.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "passes/builtin_passes.h"
#include "passes/impl_mode_selection.h"

namespace ge::passes {
namespace {

// The applied mode and the reason for it.
std::pair<std::string, std::string> Apply(const Node& node, const ImplModeRequest& request,
                                          const std::vector<std::string>& offered) {
  std::string applied = offered.empty() ? "" : offered.front();
  if (request.mode.empty()) return {applied, fmt::format("{}; kernel default", request.reason)};
  if (std::find(offered.begin(), offered.end(), request.mode) != offered.end()) return {request.mode, request.reason};
  if (offered.size() <= 1) {
    return {applied, fmt::format("{}; ignored: the {} kernel for this dtype has a single implementation{}",
                                 request.reason, node.op_type(), applied.empty() ? "" : " (" + applied + ")")};
  }
  return {applied, fmt::format("{}; ignored: the {} kernel for this dtype implements {}", request.reason,
                               node.op_type(), fmt::join(offered, ", "))};
}

class ImplModePass : public Pass {
 public:
  std::string name() const override { return "impl_mode"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    if (ctx.impl_modes == nullptr || !ctx.kernel_impl_modes) return false;
    bool changed = false;
    for (Node* node : graph.nodes()) {
      AttrMap& attrs = node->attrs();
      for (const char* name : {kImplModeAttr, kRequestedImplModeAttr, kImplModeReasonAttr}) {
        changed |= attrs.Has(name);
        attrs.Erase(name);
      }
      ImplModeRequest request = ctx.impl_modes->RequestFor(*node);
      std::vector<std::string> offered = ctx.kernel_impl_modes(*node);
      if (request.mode.empty() && offered.size() <= 1) continue;
      auto [applied, reason] = Apply(*node, request, offered);
      if (!applied.empty()) attrs.Set(kImplModeAttr, applied);
      attrs.Set(kRequestedImplModeAttr, request.mode);
      attrs.Set(kImplModeReasonAttr, reason);
      changed = true;
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeImplModePass() { return std::make_unique<ImplModePass>(); }

}  // namespace ge::passes
