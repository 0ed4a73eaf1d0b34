// Folds an inference BatchNorm into the Conv2D that feeds it.
//
// BatchNorm computes y = (conv(x, W) + b - mean) * s + offset with
// s = scale / sqrt(variance + epsilon) per output channel c, which equals
// conv(x, W') + b' with W'[c] = W[c] * s[c] and b'[c] = (b[c] - mean[c]) * s[c]
// + offset[c]. One convolution then does the work of two ops. The arithmetic
// runs in double so that folding adds no rounding beyond the final float32.
#include <cmath>

#include "graph/op_schema.h"
#include "passes/builtin_passes.h"
#include "passes/graph_rewrite.h"

namespace ge::passes {
namespace {

enum BatchNormInput { kBnX = 0, kBnScale, kBnOffset, kBnMean, kBnVariance, kBnNumInputs };
enum ConvInput { kConvX = 0, kConvFilter, kConvBias, kConvOffsetW };

template <typename T>
bool AttrIs(const Node& node, const std::string& name, const T& expected) {
  const AttrValue* value = AttrOrDefault(node, name);
  return value != nullptr && std::holds_alternative<T>(*value) && std::get<T>(*value) == expected;
}

// A float32 constant with the given number of elements, else nullptr.
const Tensor* Float32Constant(const Value* value, int64_t num_elements) {
  if (value == nullptr || value->constant() == nullptr) return nullptr;
  const Tensor* tensor = value->constant();
  bool ok = tensor->dtype() == DataType::kFloat && tensor->num_elements() == num_elements;
  return ok ? tensor : nullptr;
}

bool OnlyUsedBy(const Graph& graph, const Value* value, const Node* user) {
  return !IsGraphOutput(graph, value) && value->uses().size() == 1 && value->uses()[0].node == user;
}

// The constants a fold needs, gathered once the pattern has matched.
struct FoldInputs {
  Node* conv;
  const Tensor* filter;
  const Tensor* bias;  // nullptr when the Conv2D has none
  const Tensor* scale;
  const Tensor* offset;
  const Tensor* mean;
  const Tensor* variance;
  double epsilon;
};

std::optional<FoldInputs> MatchConvBatchNorm(const Graph& graph, const Node& bn,
                                             const std::unordered_set<const Node*>& control_dependents) {
  if (bn.num_inputs() != kBnNumInputs || bn.input(kBnX) == nullptr || !bn.control_inputs().empty()) {
    return std::nullopt;
  }
  for (size_t i = 1; i < bn.num_outputs(); ++i) {
    if (!bn.output(i)->uses().empty() || IsGraphOutput(graph, bn.output(i))) return std::nullopt;
  }
  Node* conv = bn.input(kBnX)->producer();
  if (conv == nullptr || conv->op_type() != "Conv2D" || conv->num_outputs() != 1 ||
      !conv->control_inputs().empty() || control_dependents.count(conv) != 0 ||
      !OnlyUsedBy(graph, conv->output(0), &bn) || conv->input(kConvOffsetW) != nullptr ||
      conv->input(kConvX) == nullptr || conv->input(kConvX)->dtype() != DataType::kFloat) {
    return std::nullopt;
  }
  if (!AttrIs(bn, "is_training", false) || !AttrIs(bn, "data_format", std::string("NCHW")) ||
      !AttrIs(*conv, "data_format", std::string("NCHW"))) {
    return std::nullopt;
  }
  const AttrValue* epsilon = AttrOrDefault(bn, "epsilon");
  const Value* filter_value = conv->input(kConvFilter);
  const Tensor* filter = filter_value != nullptr ? filter_value->constant() : nullptr;
  if (epsilon == nullptr || !std::holds_alternative<float>(*epsilon) || filter == nullptr ||
      filter->shape().rank() != 4 || filter->num_elements() <= 0) {
    return std::nullopt;
  }
  int64_t out_channels = filter->shape().dim(0);
  FoldInputs fold{conv,
                  Float32Constant(filter_value, filter->num_elements()),
                  Float32Constant(conv->input(kConvBias), out_channels),
                  Float32Constant(bn.input(kBnScale), out_channels),
                  Float32Constant(bn.input(kBnOffset), out_channels),
                  Float32Constant(bn.input(kBnMean), out_channels),
                  Float32Constant(bn.input(kBnVariance), out_channels),
                  std::get<float>(*epsilon)};
  bool bias_ok = conv->input(kConvBias) == nullptr || fold.bias != nullptr;
  if (fold.filter == nullptr || !bias_ok || fold.scale == nullptr || fold.offset == nullptr ||
      fold.mean == nullptr || fold.variance == nullptr) {
    return std::nullopt;
  }
  return fold;
}

struct FoldedWeights {
  Tensor filter;
  Tensor bias;
};

FoldedWeights ComputeFoldedWeights(const FoldInputs& fold) {
  const Shape& filter_shape = fold.filter->shape();
  int64_t out_channels = filter_shape.dim(0);
  int64_t per_channel = fold.filter->num_elements() / out_channels;
  FoldedWeights result{Tensor(DataType::kFloat, filter_shape), Tensor(DataType::kFloat, Shape{out_channels})};
  const float* filter = fold.filter->data_as<float>();
  float* new_filter = result.filter.data_as<float>();
  for (int64_t c = 0; c < out_channels; ++c) {
    double inv_std = 1.0 / std::sqrt(static_cast<double>(fold.variance->data_as<float>()[c]) + fold.epsilon);
    double channel_scale = fold.scale->data_as<float>()[c] * inv_std;
    for (int64_t k = c * per_channel; k < (c + 1) * per_channel; ++k) {
      new_filter[k] = static_cast<float>(filter[k] * channel_scale);
    }
    double bias = fold.bias != nullptr ? fold.bias->data_as<float>()[c] : 0.0;
    double shifted = (bias - fold.mean->data_as<float>()[c]) * channel_scale + fold.offset->data_as<float>()[c];
    result.bias.data_as<float>()[c] = static_cast<float>(shifted);
  }
  return result;
}

void Fold(Graph& graph, Node* bn, const FoldInputs& fold) {
  FoldedWeights weights = ComputeFoldedWeights(fold);
  Node* conv = fold.conv;
  std::string name = graph.UniqueName(conv->name() + "_bn");
  Value* filter = graph.AddConstant(graph.UniqueName(name + "_filter"), std::move(weights.filter));
  Value* bias = graph.AddConstant(graph.UniqueName(name + "_bias"), std::move(weights.bias));
  Node* folded = graph.AddNode("Conv2D", name, {conv->input(kConvX), filter, bias});
  folded->attrs() = conv->attrs();
  folded->output(0)->set_dtype(bn->output(0)->dtype());
  folded->output(0)->set_shape(bn->output(0)->shape());
  ReplaceValue(graph, bn->output(0), folded->output(0));
  graph.RemoveNode(bn);
  graph.RemoveNode(conv);
}

class ConvBnFoldPass : public Pass {
 public:
  std::string name() const override { return "conv_bn_fold"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    std::unordered_set<const Node*> control_dependents = NodesWithControlDependents(graph);
    bool changed = false;
    for (Node* node : graph.TopologicalOrder()) {
      if (node->op_type() != "BatchNorm" || control_dependents.count(node) != 0) continue;
      if (std::optional<FoldInputs> fold = MatchConvBatchNorm(graph, *node, control_dependents)) {
        Fold(graph, node, *fold);
        changed = true;
      }
    }
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeConvBnFoldPass() { return std::make_unique<ConvBnFoldPass>(); }

}  // namespace ge::passes
