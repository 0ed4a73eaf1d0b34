#include "quant/requant_fusion.h"

#include <bit>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "passes/graph_rewrite.h"
#include "quant/layer_weights.h"
#include "quant/quant_graph_edit.h"
#include "quant/quant_scale_bits.h"

namespace ge::quant {
namespace {

// The AscendQuant nodes reading `value`, when they are all of its consumers,
// there is at least one, and they share one set of INT8 factors; else empty.
std::vector<Node*> FusableQuants(const Graph& graph, const Value* value) {
  std::vector<Node*> quants;
  if (value->uses().empty() || passes::IsGraphOutput(graph, value)) return quants;
  for (const Use& use : value->uses()) {
    Node* quant = use.node;
    if (quant->op_type() != "AscendQuant" || use.input_index != 0 || Tagged(*quant, kSkipFusionAttr)) return {};
    const AttrMap& attrs = quant->attrs();
    if (attrs.GetBool("sqrt_mode") || attrs.GetInt("dst_type") != static_cast<int64_t>(DataType::kInt8)) return {};
    if (!quants.empty()) {
      const AttrMap& first = quants.front()->attrs();
      if (first.GetFloat("scale") != attrs.GetFloat("scale") || first.GetFloat("offset") != attrs.GetFloat("offset")) {
        return {};
      }
    }
    quants.push_back(quant);
  }
  return quants;
}

// Dequant words whose shift field is 0: a shift has no requant equivalent here.
bool PlainScales(const Tensor& deq_scale) {
  for (uint64_t word : deq_scale.values<uint64_t>()) {
    if ((word >> kScaleShiftBit) != 0) return false;
  }
  return true;
}

// A constant float scalar's value, or nullopt for anything else.
std::optional<double> ScalarConstant(const Value* value) {
  const Tensor* tensor = value != nullptr ? value->constant() : nullptr;
  if (tensor == nullptr || tensor->num_elements() != 1) return std::nullopt;
  if (tensor->dtype() != DataType::kFloat && tensor->dtype() != DataType::kFloat16) return std::nullopt;
  return TensorAsFloats(*tensor, "ClipByValue bound").front();
}

// Whether the activation between the dequant and `quant` can be dropped, and
// then whether it becomes relu_flag; nullopt when it must stay.
std::optional<bool> AbsorbedActivation(const Node& activation, const AttrMap& quant) {
  if (activation.op_type() == "Relu") return true;
  const std::optional<double> lo = ScalarConstant(activation.input(1));
  const std::optional<double> hi = ScalarConstant(activation.input(2));
  if (!lo || !hi) return std::nullopt;
  const double scale = quant.GetFloat("scale");
  const double offset = quant.GetFloat("offset");
  if (!(scale > 0)) return std::nullopt;
  // The quant computes rint(x * scale + offset) in double and saturates, so
  // these are the floats from which on every code is the int8 limit.
  const double saturates_high = (std::numeric_limits<int8_t>::max() - offset) / scale;
  const double saturates_low = (std::numeric_limits<int8_t>::min() - offset) / scale;
  if (!(*hi >= saturates_high)) return std::nullopt;
  if (*lo <= saturates_low) return false;
  if (*lo == 0) return true;
  return std::nullopt;
}

bool FuseAt(Graph& graph, Node* dequant) {
  const AttrMap& attrs = dequant->attrs();
  if (Tagged(*dequant, kSkipFusionAttr) || attrs.GetBool("relu_flag") || attrs.GetBool("sqrt_mode")) return false;
  const Value* deq_value = dequant->input(1);
  const Tensor* deq_scale = deq_value != nullptr ? deq_value->constant() : nullptr;
  if (deq_scale == nullptr || deq_scale->dtype() != DataType::kUInt64 || !PlainScales(*deq_scale)) return false;

  // The float tensor the quants read: the dequant's, or that of a Relu or ClipByValue it feeds alone.
  Value* value = dequant->output(0);
  Node* activation = nullptr;
  if (value->uses().size() == 1 && !passes::IsGraphOutput(graph, value) && value->uses()[0].input_index == 0) {
    Node* consumer = value->uses()[0].node;
    if (consumer->op_type() == "Relu" || consumer->op_type() == "ClipByValue") {
      activation = consumer;
      value = activation->output(0);
    }
  }
  const std::vector<Node*> quants = FusableQuants(graph, value);
  if (quants.empty()) return false;

  const AttrMap& quant_attrs = quants.front()->attrs();
  bool relu_flag = false;
  if (activation != nullptr) {
    const std::optional<bool> absorbed = AbsorbedActivation(*activation, quant_attrs);
    if (!absorbed) return false;
    relu_flag = *absorbed;
  }
  const double quant_scale = quant_attrs.GetFloat("scale");
  const auto offset = static_cast<int32_t>(quant_attrs.GetFloat("offset"));
  Tensor req_scale(DataType::kUInt64, deq_scale->shape());
  const std::span<const uint64_t> deq_words = deq_scale->values<uint64_t>();
  for (size_t c = 0; c < deq_words.size(); ++c) {
    const float deq = std::bit_cast<float>(static_cast<uint32_t>(deq_words[c]));
    req_scale.data_as<uint64_t>()[c] = PackRequantScale(static_cast<float>(deq * quant_scale), offset);
  }
  const AttrValue* layer_attr = attrs.Find(kQuantLayerAttr);
  const std::string layer = layer_attr != nullptr ? std::get<std::string>(*layer_attr) : dequant->name();
  Value* req = graph.AddConstant(graph.UniqueName(layer + "_req_scale"), std::move(req_scale));
  Node* requant = graph.AddNode("AscendRequant", layer + "_requant", {dequant->input(0), req});
  requant->attrs().Set("relu_flag", relu_flag);
  requant->attrs().Set("channel_axis", attrs.GetInt("channel_axis"));
  requant->attrs().Set(kQuantLayerAttr, layer);
  requant->output(0)->set_dtype(DataType::kInt8);
  requant->output(0)->set_shape(dequant->output(0)->shape());

  for (Node* quant : quants) {
    RedirectUses(graph, quant->output(0), requant->output(0), nullptr);
    graph.RemoveNode(quant);
  }
  if (activation != nullptr) graph.RemoveNode(activation);
  graph.RemoveNode(dequant);
  return true;
}

}  // namespace

size_t FuseRequant(Graph& graph) {
  std::vector<Node*> dequants;
  for (Node* node : graph.nodes()) {
    if (node->op_type() == "AscendDequant") dequants.push_back(node);
  }
  size_t fused = 0;
  for (Node* dequant : dequants) fused += FuseAt(graph, dequant);
  return fused;
}

}  // namespace ge::quant
