// Collapses the decomposed layer normalization that ONNX exports of
// torch.nn.LayerNorm (opset < 17) produce into one LayerNorm node:
//
//   mean = ReduceMeanD(x, trailing axes, keep_dims)    d = Sub(x, mean)
//   var  = ReduceMeanD(Pow(d, 2) or Mul(d, d), same axes, keep_dims)
//   n    = Div(d, Sqrt(Add(var, eps)))  or  Mul(d, Reciprocal(Sqrt(Add(var, eps))))
//   y    = Add(Mul(n, gamma), beta)     (Mul and Add optional, operands in either order)
//
// becomes LayerNorm(x, gamma, beta) with begin_norm_axis = begin_params_axis
// = the first reduced axis and epsilon = the constant eps; a missing gamma is
// ones and a missing beta zeros. Only exact matches fuse: the reductions cover
// the same trailing axes, eps is a positive scalar constant, the exponent is 2
// (within the dtype's epsilon, see IsUniformConstant), gamma and beta are
// constants of x's dtype holding exactly the normalized dims, no elementwise
// step broadcasts beyond x's shape, and every intermediate feeds only the next
// step of the pattern and is not a graph output. The normalized dims must be
// known; the leading ones may not be (a dynamic model's batch and sequence).
#include <algorithm>
#include <numeric>

#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"
#include "passes/pattern_fusion.h"

namespace ge::passes {
namespace {

// The first axis of a ReduceMeanD over the trailing axes [begin, rank) with
// keep_dims, else nullopt.
std::optional<int64_t> TrailingReductionBegin(const Node& mean, int64_t rank) {
  const AttrValue* axes_attr = AttrOrDefault(mean, "axes");
  const AttrValue* keep_dims = AttrOrDefault(mean, "keep_dims");
  if (axes_attr == nullptr || !std::holds_alternative<std::vector<int64_t>>(*axes_attr) || keep_dims == nullptr ||
      !std::holds_alternative<bool>(*keep_dims) || !std::get<bool>(*keep_dims)) {
    return std::nullopt;
  }
  std::vector<int64_t> axes = std::get<std::vector<int64_t>>(*axes_attr);
  if (axes.empty() || static_cast<int64_t>(axes.size()) > rank) return std::nullopt;
  for (int64_t& axis : axes) {
    if (axis < -rank || axis >= rank) return std::nullopt;
    if (axis < 0) axis += rank;
  }
  std::sort(axes.begin(), axes.end());
  const int64_t begin = rank - static_cast<int64_t>(axes.size());
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] != begin + static_cast<int64_t>(i)) return std::nullopt;  // also rejects repeated axes
  }
  return begin;
}

// An elementwise step of the pattern that must not broadcast beyond `like`.
bool SameShape(const Node* node, const Value* like) { return node->output(0)->shape() == like->shape(); }

class LayerNormMatcher {
 public:
  LayerNormMatcher(const Graph& graph, const PassContext& ctx) : matcher_(graph), ctx_(ctx) {}

  std::optional<Fusion> Match(Node* mean) const {
    if (!matcher_.Absorbable(mean, "ReduceMeanD") || mean->num_inputs() != 1) return std::nullopt;
    Value* x = mean->input(0);
    if (x == nullptr || x->shape().unknown_rank() || !IsFusableFloat(x->dtype()) ||
        !DeviceHasKernel(ctx_, "LayerNorm", x->dtype())) {
      return std::nullopt;
    }
    const int64_t rank = static_cast<int64_t>(x->shape().rank());
    std::optional<int64_t> begin = TrailingReductionBegin(*mean, rank);
    if (!begin) return std::nullopt;
    // The normalized dims size gamma and beta; the others (a dynamic
    // model's batch and sequence) may be unknown.
    const auto& dims = x->shape().dims();
    if (std::find(dims.begin() + *begin, dims.end(), Shape::kUnknownDim) != dims.end()) return std::nullopt;

    Node* sub = matcher_.SoleUser(mean->output(0), "Sub");
    if (sub == nullptr || sub->input(0) != x || sub->input(1) != mean->output(0) || !SameShape(sub, x)) {
      return std::nullopt;
    }
    Value* d = sub->output(0);
    std::vector<Node*> d_users = matcher_.Users(d);
    if (d_users.size() != 2) return std::nullopt;
    Node* square = IsSquareOf(d_users[0], d) ? d_users[0] : d_users[1];
    Node* normalize = square == d_users[0] ? d_users[1] : d_users[0];
    if (!IsSquareOf(square, d) || !SameShape(square, x)) return std::nullopt;

    Node* variance = matcher_.SoleUser(square->output(0), "ReduceMeanD");
    if (variance == nullptr || TrailingReductionBegin(*variance, rank) != begin) return std::nullopt;
    Node* add_eps = matcher_.SoleUser(variance->output(0), "Add");
    if (add_eps == nullptr || !SameShape(add_eps, variance->output(0))) return std::nullopt;
    std::optional<double> epsilon = UniformConstantValue(OtherInput(*add_eps, variance->output(0)));
    if (!epsilon || !(*epsilon > 0)) return std::nullopt;
    Node* sqrt = matcher_.SoleUser(add_eps->output(0), "Sqrt");
    if (sqrt == nullptr) return std::nullopt;

    std::vector<Node*> pattern = {mean, sub, square, variance, add_eps, sqrt};
    if (!MatchesNormalize(normalize, d, sqrt, pattern) || !SameShape(normalize, x)) return std::nullopt;
    pattern.push_back(normalize);

    const std::vector<int64_t> normalized_dims(x->shape().dims().begin() + *begin, x->shape().dims().end());
    Value* result = normalize->output(0);
    Value* gamma = AffineParameter(result, "Mul", x, normalized_dims, pattern);
    if (gamma != nullptr) result = pattern.back()->output(0);
    Value* beta = AffineParameter(result, "Add", x, normalized_dims, pattern);
    if (beta != nullptr) result = pattern.back()->output(0);

    Graph& graph = *mean->graph();
    if (gamma == nullptr) {
      gamma = graph.AddConstant(graph.UniqueName(mean->name() + "_gamma"),
                                FilledTensor(x->dtype(), Shape(normalized_dims), 1.0f));
    }
    if (beta == nullptr) {
      beta = graph.AddConstant(graph.UniqueName(mean->name() + "_beta"),
                               FilledTensor(x->dtype(), Shape(normalized_dims), 0.0f));
    }
    Fusion fusion{"layer_norm_fusion", "LayerNorm", {x, gamma, beta}, {}, std::move(pattern), result};
    fusion.attrs.Set("begin_norm_axis", *begin);
    fusion.attrs.Set("begin_params_axis", *begin);
    fusion.attrs.Set("epsilon", static_cast<float>(*epsilon));
    return fusion;
  }

 private:
  bool IsSquareOf(const Node* node, const Value* d) const {
    if (matcher_.Absorbable(node, "Mul")) return node->num_inputs() == 2 && node->input(0) == d && node->input(1) == d;
    return matcher_.Absorbable(node, "Pow") && node->num_inputs() == 2 && node->input(0) == d &&
           IsUniformConstant(node->input(1), 2.0);
  }

  // Div(d, sqrt) or Mul(d, Reciprocal(sqrt)); appends the Reciprocal to the pattern.
  bool MatchesNormalize(const Node* normalize, const Value* d, const Node* sqrt, std::vector<Node*>& pattern) const {
    if (matcher_.Absorbable(normalize, "Div")) {
      return normalize->input(0) == d && normalize->input(1) == sqrt->output(0) &&
             matcher_.SoleUser(sqrt->output(0), "Div") == normalize;
    }
    Node* reciprocal = matcher_.SoleUser(sqrt->output(0), "Reciprocal");
    if (reciprocal == nullptr || !matcher_.Absorbable(normalize, "Mul") ||
        OtherInput(*normalize, d) != reciprocal->output(0) ||
        matcher_.SoleUser(reciprocal->output(0), "Mul") != normalize) {
      return false;
    }
    pattern.push_back(reciprocal);
    return true;
  }

  // gamma (op_type Mul) or beta (Add): the constant `value` alone is combined
  // with, of x's dtype and holding exactly the normalized dims. Appends the
  // node to the pattern; nullptr when the next step is something else.
  Value* AffineParameter(const Value* value, const std::string& op_type, const Value* x,
                         const std::vector<int64_t>& normalized_dims, std::vector<Node*>& pattern) const {
    Node* node = matcher_.SoleUser(value, op_type);
    if (node == nullptr || !SameShape(node, x)) return nullptr;
    Value* parameter = OtherInput(*node, value);
    if (parameter == nullptr || parameter == value || parameter->constant() == nullptr ||
        parameter->dtype() != x->dtype()) {
      return nullptr;
    }
    const Shape& shape = parameter->shape();
    const int64_t normalized =
        std::accumulate(normalized_dims.begin(), normalized_dims.end(), int64_t{1}, std::multiplies<int64_t>());
    // With the output no wider than x, a parameter of at most the normalized
    // rank holding their element count has exactly the normalized dims.
    if (shape.rank() > normalized_dims.size() || shape.NumElements() != normalized) return nullptr;
    pattern.push_back(node);
    return parameter;
  }

  PatternMatcher matcher_;
  const PassContext& ctx_;
};

class LayerNormFusionPass : public Pass {
 public:
  std::string name() const override { return "layer_norm_fusion"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    LayerNormMatcher matcher(graph, ctx);
    return FuseAll(graph, ctx, "ReduceMeanD", [&](Node* node) { return matcher.Match(node); });
  }
};

}  // namespace

std::unique_ptr<Pass> MakeLayerNormFusionPass() { return std::make_unique<LayerNormFusionPass>(); }

}  // namespace ge::passes
