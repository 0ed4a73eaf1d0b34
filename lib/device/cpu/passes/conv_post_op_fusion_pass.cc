// Folds what follows a float32 Conv2D on the CPU into the convolution, where
// oneDNN applies it as a post-op while the result is still in registers: a
// residual Add of a same-shaped tensor (the addend becomes Conv2D input
// kConvFusedAddend), then a Relu or a ClipByValue with constant scalar bounds
// (Relu6). Each folded op would otherwise read and write the whole tensor
// once more. The folded ops are recorded in the "_fused*" attributes
// (graph/conv_post_ops.h), which only the CPU kernel reads: the CPU device
// runs the pass (PassStage::kDevice) on the graphs compiled for it.
#include <optional>

#include "graph/conv_post_ops.h"
#include "device/cpu/passes/cpu_float_conv.h"
#include "device/cpu/passes/cpu_rewrite_passes.h"
#include "passes/graph_rewrite.h"
#include "passes/pattern_fusion.h"

namespace ge::device::cpu {
namespace {

using passes::PatternMatcher;
using passes::ReplaceKeepingName;

// The float32 oneDNN convolution of the CPU kernel (the other paths run
// kernels without post-ops), with no control edges to keep apart.
bool IsFusableConv(const PatternMatcher& matcher, const Node& conv) {
  return IsCpuFloat32Conv(conv) && matcher.Absorbable(&conv, "Conv2D");
}

// The node that alone reads the convolution's result, once, when it may
// disappear into it and computes a tensor like the result.
Node* SoleConsumer(const PatternMatcher& matcher, const Node& conv) {
  const Value* result = conv.output(0);
  const std::vector<Node*> users = matcher.Users(result);
  if (users.size() != 1 || result->uses().size() != 1) return nullptr;
  Node* consumer = users[0];
  if (!matcher.Absorbable(consumer, consumer->op_type())) return nullptr;
  const Value* out = consumer->output(0);
  bool same_tensor = out->dtype() == result->dtype() && out->shape().IsStatic() && out->shape() == result->shape();
  return same_tensor ? consumer : nullptr;
}

// A float32 constant holding one element.
std::optional<float> ScalarConstant(const Value* value) {
  const Tensor* tensor = value != nullptr ? value->constant() : nullptr;
  if (tensor == nullptr || tensor->dtype() != DataType::kFloat || tensor->num_elements() != 1) return std::nullopt;
  return tensor->data_as<float>()[0];
}

// Records the activation on the convolution; false when the consumer is none it can apply.
bool RecordActivation(Node& conv, const Node& consumer) {
  if (consumer.op_type() == "Relu" && consumer.num_inputs() == 1) {
    conv.attrs().Set(kFusedActivationAttr, std::string(kFusedRelu));
    return true;
  }
  if (consumer.op_type() == "ClipByValue" && consumer.num_inputs() == 3 && consumer.input(0) == conv.output(0)) {
    std::optional<float> low = ScalarConstant(consumer.input(1)), high = ScalarConstant(consumer.input(2));
    if (!low || !high || !(*low <= *high)) return false;
    conv.attrs().Set(kFusedActivationAttr, std::string(kFusedClip));
    conv.attrs().Set(kFusedClipMinAttr, *low);
    conv.attrs().Set(kFusedClipMaxAttr, *high);
    return true;
  }
  return false;
}

// Add(result, y) or Add(y, result) with y as large as the result: y becomes the addend.
bool RecordAdd(Node& conv, const Node& consumer) {
  if (consumer.op_type() != "Add" || consumer.num_inputs() != 2) return false;
  const Value* result = conv.output(0);
  Value* addend = consumer.input(0) == result ? consumer.input(1) : consumer.input(0);
  if (addend == nullptr || addend == result || addend->dtype() != result->dtype() ||
      addend->shape() != result->shape()) {
    return false;
  }
  conv.SetInput(kConvFusedAddend, addend);
  conv.attrs().Set(kFusedAddAttr, true);
  return true;
}

// The convolution takes over the consumer's output value, name included, so
// that downstream nodes and graph outputs see no change.
void Absorb(Graph& graph, Node& conv, Node* consumer) {
  ReplaceKeepingName(graph, consumer->output(0), conv.output(0));
  graph.RemoveNode(consumer);
}

// Folds the Add first and the activation after it (oneDNN applies post-ops in
// that order); nothing follows an activation.
bool FuseInto(Graph& graph, const PatternMatcher& matcher, Node& conv) {
  bool changed = false;
  while (!conv.attrs().Has(kFusedActivationAttr)) {
    Node* consumer = SoleConsumer(matcher, conv);
    if (consumer == nullptr) break;
    bool recorded = !conv.attrs().Has(kFusedAddAttr) && RecordAdd(conv, *consumer);
    recorded = recorded || RecordActivation(conv, *consumer);
    if (!recorded) break;
    Absorb(graph, conv, consumer);
    changed = true;
  }
  return changed;
}

class ConvPostOpFusionPass : public Pass {
 public:
  std::string name() const override { return "conv_post_op_fusion"; }

  bool Run(Graph& graph, PassContext& ctx) override {
    // Built once: fusing removes only nodes without control edges.
    const PatternMatcher matcher(graph);
    // Gathered first: fusing removes consumers a running topological order would still hold.
    std::vector<Node*> convs;
    for (Node* node : graph.TopologicalOrder()) {
      if (IsFusableConv(matcher, *node)) convs.push_back(node);
    }
    bool changed = false;
    for (Node* conv : convs) changed = FuseInto(graph, matcher, *conv) || changed;
    return changed;
  }
};

}  // namespace

std::unique_ptr<Pass> MakeConvPostOpFusionPass() { return std::make_unique<ConvPostOpFusionPass>(); }

}  // namespace ge::device::cpu
