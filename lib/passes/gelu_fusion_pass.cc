// Collapses the erf form of GELU, x * 0.5 * (1 + erf(x / sqrt(2))), as ONNX
// exporters spell it, into one Gelu node (its erf form). Anchored on the Erf:
//
//   s = Div(x, sqrt(2)) or Mul(x, 1/sqrt(2))      a = Add(Erf(s), 1)
//   y = Mul(Mul(x, a), 0.5)      (torch.nn.functional.gelu)
//     | Mul(x, Mul(a, 0.5))
//     | Mul(Mul(x, 0.5), a)      (the BERT/TF form)
//
// with every Mul and Add taking its operands in either order. Constants are
// checked by value within their dtype's epsilon (IsUniformConstant); each
// intermediate feeds only the next step and is not a graph output; no step may
// broadcast beyond x's shape. x's dims may be unknown: every step's inferred
// shape must equal x's, and a constant that broadcast an unknown dim to
// another size would show in that shape. The tanh approximation is not fused: the op set
// has no Gelu variant that computes it (high_performance Gelu is an
// implementation mode, not a formula a model states).
#include <cmath>

#include "passes/builtin_passes.h"
#include "passes/pattern_fusion.h"

namespace ge::passes {
namespace {

class GeluMatcher {
 public:
  GeluMatcher(const Graph& graph, const PassContext& ctx) : matcher_(graph), ctx_(ctx) {}

  std::optional<Fusion> Match(Node* erf) const {
    if (!matcher_.Absorbable(erf, "Erf") || erf->num_inputs() != 1 || erf->input(0) == nullptr) return std::nullopt;
    Node* scale = erf->input(0)->producer();
    Value* x = ScaledInput(scale);
    if (x == nullptr || matcher_.SoleUser(scale->output(0), "Erf") != erf || x->shape().unknown_rank() ||
        !IsFusableFloat(x->dtype()) || !DeviceHasKernel(ctx_, "Gelu", x->dtype())) {
      return std::nullopt;
    }
    Node* add_one = matcher_.SoleUser(erf->output(0), "Add");
    if (!Step(add_one, x) || !IsUniformConstant(OtherInput(*add_one, erf->output(0)), 1.0)) return std::nullopt;
    Value* a = add_one->output(0);

    std::vector<Node*> pattern = {scale, erf, add_one};
    Node* first = matcher_.SoleUser(a, "Mul");
    if (!Step(first, x)) return std::nullopt;
    Value* other = OtherInput(*first, a);
    Node* last = nullptr;
    if (other == x || IsUniformConstant(other, 0.5)) {  // Mul(Mul(x, a), 0.5) or Mul(x, Mul(a, 0.5))
      last = matcher_.SoleUser(first->output(0), "Mul");
      if (!Step(last, x)) return std::nullopt;
      Value* rest = OtherInput(*last, first->output(0));
      if (!(other == x ? IsUniformConstant(rest, 0.5) : rest == x)) return std::nullopt;
      pattern.insert(pattern.end(), {first, last});
    } else {  // Mul(Mul(x, 0.5), a)
      Node* half = other != nullptr ? other->producer() : nullptr;
      if (!Step(half, x) || half->op_type() != "Mul" || matcher_.SoleUser(other, "Mul") != first ||
          !IsUniformConstant(OtherInput(*half, x), 0.5)) {
        return std::nullopt;
      }
      last = first;
      pattern.insert(pattern.end(), {half, first});
    }
    return Fusion{"gelu_fusion", "Gelu", {x}, {}, std::move(pattern), last->output(0)};
  }

 private:
  // A Mul or Add of the pattern: absorbable, two inputs, no broadcast beyond x.
  bool Step(const Node* node, const Value* x) const {
    return node != nullptr && (matcher_.Absorbable(node, "Mul") || matcher_.Absorbable(node, "Add")) &&
           node->num_inputs() == 2 && node->output(0)->shape() == x->shape();
  }

  // x of Div(x, sqrt(2)) or Mul(x, 1/sqrt(2)) (either order), else nullptr.
  Value* ScaledInput(const Node* scale) const {
    if (scale == nullptr || scale->num_inputs() != 2) return nullptr;
    Value* x = nullptr;
    if (matcher_.Absorbable(scale, "Div") && IsUniformConstant(scale->input(1), std::sqrt(2.0))) {
      x = scale->input(0);
    } else if (matcher_.Absorbable(scale, "Mul")) {
      for (int i : {0, 1}) {
        if (IsUniformConstant(scale->input(1 - i), std::sqrt(0.5))) x = scale->input(i);
      }
    }
    return x != nullptr && scale->output(0)->shape() == x->shape() ? x : nullptr;
  }

  PatternMatcher matcher_;
  const PassContext& ctx_;
};

class GeluFusionPass : public Pass {
 public:
  std::string name() const override { return "gelu_fusion"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    GeluMatcher matcher(graph, ctx);
    return FuseAll(graph, ctx, "Erf", [&](Node* node) { return matcher.Match(node); });
  }
};

}  // namespace

std::unique_ptr<Pass> MakeGeluFusionPass() { return std::make_unique<GeluFusionPass>(); }

}  // namespace ge::passes
