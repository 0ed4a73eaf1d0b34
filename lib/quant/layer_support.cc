#include "quant/layer_support.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>

#include "ge/error.h"
#include "graph/data_format.h"
#include "quant/layer_weights.h"

namespace ge::quant {
const std::vector<WeightOnlySupportRow>& WeightOnlySupportTable() {
  static const std::vector<WeightOnlySupportRow> table = {
      {"MatMulV2", "true", "true",
       "the second input must not come from a placeholder or another dynamically changing node"},
      {"BatchMatMulV2", "true", "true",
       "the second input must not come from a placeholder or another dynamically changing node"},
      {"FFN", "true", "true or false",
       "expert_tokens is present; both weights are float16 constants; antiquant_scale1, antiquant_scale2, "
       "antiquant_offset1 and antiquant_offset2 are absent; the weights are not shared"},
  };
  return table;
}

std::string QuantLayer::Decision() const {
  if (!quantize) return "skipped: " + reason;
  if (kind == QuantLayerKind::kWeightOnly) return "weight-only INT8";
  if (kind == QuantLayerKind::kTwoTensorMatMul) return "INT8";
  return QuantDTypeName(config.dst_type());
}

namespace {

bool IsFloat(DataType type) { return type == DataType::kFloat || type == DataType::kFloat16; }

std::string ShapeText(const Value* value) { return value->shape().ToString(); }

// `reason` when the rule is broken, else empty.
std::string BrokenIf(bool broken, std::string reason) { return broken ? std::move(reason) : std::string(); }

// The first broken rule, in the order given (rules are cheap to evaluate).
std::string FirstBroken(std::initializer_list<std::string> reasons) {
  for (const std::string& reason : reasons) {
    if (!reason.empty()) return reason;
  }
  return {};
}

// Where a non-constant weight comes from, for the "weight source" rule.
std::string NonConstantSource(const std::string& what, const Value* value) {
  const Node* producer = value->producer();
  if (producer != nullptr && producer->op_type() == "Data") {
    return fmt::format("weight input '{}' comes from graph input '{}', not a constant", what, value->name());
  }
  return fmt::format("weight input '{}' is computed by {}, not a constant", what,
                     producer != nullptr ? producer->Describe() : value->name());
}

// The broken weight rule of a weighted layer (empty when the weight is fine).
std::string WeightRule(const Node& node, size_t input, const std::string& what) {
  const Value* weight = node.input(input);
  if (weight == nullptr) return fmt::format("weight input '{}' is missing", what);
  if (weight->constant() == nullptr) return NonConstantSource(what, weight);
  return BrokenIf(!IsFloat(weight->dtype()),
                  fmt::format("weight input '{}' is {}, not float32 or float16", what, DataTypeName(weight->dtype())));
}

// The bias becomes an int32 constant, so it must be one now.
std::string BiasRule(const Node& node, size_t input) {
  const Value* bias = node.input(input);
  if (bias == nullptr) return {};
  return BrokenIf(bias->constant() == nullptr || !IsFloat(bias->dtype()),
                  fmt::format("bias '{}' must be a float constant to become int32", bias->name()));
}

std::string ActivationRule(const Value* x) {
  if (x == nullptr) return "an activation input is missing";
  return BrokenIf(!IsFloat(x->dtype()),
                  fmt::format("input '{}' is {}, not float32 or float16", x->name(), DataTypeName(x->dtype())));
}

std::string Float16Rule(bool float16_model, const std::string& what) {
  return BrokenIf(float16_model, fmt::format("float16 model: {} quantization is disabled", what));
}

std::string Int8OnlyRule(const QuantLayer& layer, const std::string& what) {
  return BrokenIf(layer.config.dst_type() == QuantDType::kInt16, fmt::format("{} (config asks INT16)", what));
}

bool BoolAttr(const Node& node, const std::string& name) {
  const AttrValue* value = node.attrs().Find(name);
  return value != nullptr && std::holds_alternative<bool>(*value) && std::get<bool>(*value);
}

// A model with float16 inputs or weights: the tensor-only and two-tensor
// layers are not quantized (the seed's general note).
bool IsFloat16Model(const Graph& graph) {
  for (const Value* input : graph.inputs()) {
    if (input->dtype() == DataType::kFloat16) return true;
  }
  for (const Node* node : graph.nodes()) {
    if (node->op_type() == "Const" && node->output(0)->dtype() == DataType::kFloat16 &&
        node->output(0)->shape().NumElements() > 1) {
      return true;
    }
  }
  return false;
}

// Rules shared by the layers quantized as weight + activation; `layer_rule`
// is the op's own rule (empty when it holds).
void PlanWeighted(const Node& node, size_t x_input, size_t weight_input, int64_t channel_axis,
                  const std::string& layer_rule, QuantLayer& layer) {
  layer.kind = QuantLayerKind::kWeighted;
  layer.weight_input = static_cast<int>(weight_input);
  layer.weight_channel_axis = channel_axis;
  const Value* x = node.input(x_input);
  if (x != nullptr) layer.activation_values = {x->name()};
  const bool matmul = node.op_type() == "MatMulV2" || node.op_type() == "BatchMatMulV2";
  layer.reason = FirstBroken({layer_rule, ActivationRule(x), WeightRule(node, weight_input, matmul ? "x2" : "filter"),
                              BiasRule(node, weight_input + 1)});
}

void PlanConv(const Node& node, QuantLayer& layer) {
  // ge's int16 convolution is NCHW only (the seed allows INT16 here; docs/quantization.md lists the departure).
  PlanWeighted(node, 0, 1, 0,
               ChannelsLast(node) ? Int8OnlyRule(layer, "Conv2D data_format NHWC quantizes INT8 only") : "", layer);
}

void PlanGemm(const Node& node, QuantLayer& layer) {
  PlanWeighted(node, 0, 1, BoolAttr(node, "transpose_x2") ? 0 : 1, "", layer);
}

void PlanConvTranspose(const Node& node, QuantLayer& layer) {
  const int64_t groups = node.attrs().GetInt("groups");
  // The filter [Cin, Cout/groups, kh, kw] has no axis that runs over all output channels.
  PlanWeighted(node, 1, 2, 1,
               BrokenIf(groups != 1, fmt::format("ConvTranspose groups must be 1 for per-channel weight scales "
                                                 "(groups = {})",
                                                 groups)),
               layer);
}

void PlanMatMul(const Node& node, bool float16_model, QuantLayer& layer) {
  const Value* x1 = node.input(0);
  const Value* x2 = node.input(1);
  const int64_t weight_axis = BoolAttr(node, "adj_x2") ? 0 : 1;
  // The integer BatchMatMulV2 takes symmetric INT8 activations only (offset_x 0).
  layer.config.ifmr.asymmetric = layer.config.hfmg.asymmetric = false;
  const std::string adjoint_rule =
      BrokenIf(BoolAttr(node, "adj_x1"), "MatMul adj_x1 must be false (BatchMatMulV2 adj_x1 = true)");
  if (x2 != nullptr && x2->constant() != nullptr) {
    PlanWeighted(node, 0, 1, weight_axis,
                 FirstBroken({adjoint_rule,
                              BrokenIf(x2->shape().rank() != 2,
                                       fmt::format("MatMul constant input must be 2-D (x2 is {})", ShapeText(x2))),
                              Int8OnlyRule(layer, "BatchMatMulV2 quantizes INT8 symmetric only")}),
                 layer);
    return;
  }
  if (x1 != nullptr && x1->constant() != nullptr) {
    PlanWeighted(node, 0, 1, weight_axis, "MatMul constant input must be the second input (x1 is a constant)", layer);
    return;
  }
  layer.kind = QuantLayerKind::kTwoTensorMatMul;
  if (x1 != nullptr && x2 != nullptr) layer.activation_values = {x1->name(), x2->name()};
  layer.reason = FirstBroken({adjoint_rule, ActivationRule(x1), ActivationRule(x2), BiasRule(node, 2),
                              Float16Rule(float16_model, "two-tensor BatchMatMulV2"),
                              Int8OnlyRule(layer, "two tensor inputs: INT8 symmetric only")});
}

void PlanPool(const Node& node, bool float16_model, QuantLayer& layer) {
  layer.kind = QuantLayerKind::kTensorOnly;
  const Value* x = node.input(0);
  if (x != nullptr) layer.activation_values = {x->name()};
  const bool average = node.op_type() == "AvgPoolV2";
  layer.reason =
      FirstBroken({ActivationRule(x), Float16Rule(float16_model, node.op_type()),
                   average ? Int8OnlyRule(layer, "AvgPoolV2 has an INT8 kernel only") : std::string()});
}

void PlanAdd(const Node& node, bool float16_model, QuantLayer& layer) {
  layer.kind = QuantLayerKind::kTensorOnly;
  std::vector<const Value*> tensors;
  for (const Value* input : node.inputs()) {
    if (input != nullptr && input->constant() == nullptr) tensors.push_back(input);
  }
  if (tensors.size() == 1) {
    layer.activation_values = {tensors[0]->name()};
    layer.reason = FirstBroken({ActivationRule(tensors[0]), Float16Rule(float16_model, "Add")});
    return;
  }
  layer.reason = fmt::format("Add quantizes one tensor input only ({})",
                             tensors.empty() ? "both inputs are constants" : "both inputs are variable tensors");
}

std::string FfnWeightOnlyRule(const Node& node) {
  if (node.input(ffn::kExpertTokens) == nullptr) return "FFN expert_tokens input must be present";
  for (size_t input : {ffn::kWeight1, ffn::kWeight2}) {
    const std::string what = input == ffn::kWeight1 ? "weight1" : "weight2";
    const Value* weight = node.input(input);
    if (weight == nullptr) return fmt::format("FFN {} is missing", what);
    if (weight->constant() == nullptr) return NonConstantSource(what, weight);
    if (weight->dtype() != DataType::kFloat16) {
      return fmt::format("FFN weights must be float16 constants ({} is {})", what, DataTypeName(weight->dtype()));
    }
    if (weight->uses().size() != 1) {
      return fmt::format("FFN {} '{}' is shared by {} inputs (weight sharing is not supported)", what, weight->name(),
                         weight->uses().size());
    }
  }
  for (size_t input : {ffn::kAntiquantScale1, ffn::kAntiquantScale2, ffn::kAntiquantOffset1, ffn::kAntiquantOffset2}) {
    if (node.input(input) != nullptr) {
      return "FFN antiquant_scale1, antiquant_scale2, antiquant_offset1 and antiquant_offset2 inputs must be empty";
    }
  }
  return {};
}

void PlanWeightOnly(const Node& node, QuantLayer& layer) {
  layer.kind = QuantLayerKind::kWeightOnly;
  const std::string& op = node.op_type();
  if (op == "FFN") {
    layer.weight_input = static_cast<int>(ffn::kWeight1);
    const Value* weight1 = node.input(ffn::kWeight1);
    layer.weight_channel_axis = weight1 != nullptr && weight1->shape().rank() == 3 ? 2 : 1;  // N1
    layer.reason = FfnWeightOnlyRule(node);
    return;
  }
  if (op != "MatMulV2" && op != "BatchMatMulV2") {
    layer.reason = fmt::format("weight_compress_only applies to MatMulV2, BatchMatMulV2 and FFN only, not {}", op);
    return;
  }
  layer.weight_input = 1;
  layer.weight_channel_axis = BoolAttr(node, op == "MatMulV2" ? "transpose_x2" : "adj_x2") ? 0 : 1;  // along N
  const Value* x2 = node.input(1);
  layer.reason = FirstBroken(
      {ActivationRule(node.input(0)), WeightRule(node, 1, "x2"),
       BrokenIf(x2 != nullptr && x2->shape().rank() != 2,
                fmt::format("weight-only {} needs a 2-D constant x2 (x2 is {})", op, x2 ? ShapeText(x2) : ""))});
}

// The seed's weight-only table marks full quantization of MatMulV2 and
// BatchMatMulV2 with ARQ channel_wise true as failing (×), so their weights
// take one scale, whatever the config says; the report notes it.
void TurnOffChannelWiseProducts(QuantLayer& layer) {
  const bool product = layer.op_type == "MatMulV2" || layer.op_type == "BatchMatMulV2";
  if (!product || layer.kind != QuantLayerKind::kWeighted || !layer.config.arq.channel_wise) return;
  layer.config.arq.channel_wise = false;
  layer.notes.push_back(fmt::format("ARQ channel_wise turned off: the seed marks full quantization of {} with "
                                    "channel_wise true as failing; the weight takes one scale",
                                    layer.op_type));
}

// Weight-only quantization exists on some products only (FFN's on fewer).
std::string WeightOnlyProductRule(const std::string& op, const Product& product) {
  if (!product.HasWeightOnly()) {
    return fmt::format("weight-only quantization is available on Atlas inference series and Atlas A2 products "
                       "only, not on {} (--soc_version {})",
                       product.name, product.soc_version);
  }
  if (op == "FFN" && !product.HasFfnWeightOnly()) {
    return fmt::format("FFN weight-only quantization is available on Atlas A2 products only, not on {} "
                       "(--soc_version {})",
                       product.name, product.soc_version);
  }
  return {};
}

// The op types a user may write for a candidate: Ascend IR first, then ONNX.
const std::map<std::string, std::vector<std::string>>& CandidateTypeNames() {
  static const std::map<std::string, std::vector<std::string>> names = {
      {"Conv2D", {"Conv2D", "Conv"}},
      {"Conv3D", {"Conv3D", "Conv"}},
      {"MatMulV2", {"MatMulV2", "Gemm"}},
      {"Conv2DTranspose", {"Conv2DTranspose", "ConvTranspose"}},
      {"BatchMatMulV2", {"BatchMatMulV2", "MatMul"}},
      {"AvgPoolV2", {"AvgPoolV2", "AveragePool"}},
      {"MaxPoolV3", {"MaxPoolV3", "MaxPool"}},
      {"MaxPool", {"MaxPool"}},
      {"Add", {"Add"}},
      {"FFN", {"FFN"}},
  };
  return names;
}

}  // namespace

std::vector<QuantLayer> PlanQuantLayers(const Graph& graph, const QuantConfig& config, const Product& product) {
  const bool float16_model = IsFloat16Model(graph);
  const bool ipv350 = product.UsesIpv350Table();
  std::vector<QuantLayer> layers;
  for (const Node* node : graph.TopologicalOrder()) {
    const LayerSource source = SourceOfLayer(*node, ipv350);
    auto names = CandidateTypeNames().find(node->op_type());
    const bool engine_candidate = names != CandidateTypeNames().end();
    if (!engine_candidate && !ListedForItsFramework(*node, source)) continue;
    QuantLayer layer;
    layer.name = node->name();
    layer.op_type = node->op_type();
    layer.framework = source.framework;
    layer.framework_op = source.op;
    layer.type_names = engine_candidate ? names->second : std::vector<std::string>{layer.op_type};
    // skip_layer_types may name the framework's op ("MatMul", "Pooling") and the table's spelling of it.
    for (const std::string* name : {&source.op, source.row ? &source.row->framework_op : nullptr}) {
      if (name != nullptr && std::find(layer.type_names.begin(), layer.type_names.end(), *name) == layer.type_names.end()) {
        layer.type_names.push_back(*name);
      }
    }
    layer.config = config.ForLayer(layer.name, layer.type_names);
    const std::string table = ipv350 && source.framework != "Caffe" ? "IPV350 table: " : "";
    layer.rule = source.row != nullptr ? fmt::format("{}{} {}: {}", table, source.framework, source.row->framework_op,
                                                     source.row->constraint)
                                       : fmt::format("no row in {}", FrameworkOpsList(source.framework, ipv350));
    const std::string& op = layer.op_type;
    const std::string framework_rule =
        source.row != nullptr && source.row->check != nullptr ? source.row->check(*node) : std::string();
    if (layer.config.weight_compress_only) {
      PlanWeightOnly(*node, layer);
      layer.rule = fmt::format("weight-only table: {}", op);
      if (layer.reason.empty()) layer.reason = WeightOnlyProductRule(op, product);
    } else if (source.row == nullptr && (source.framework != "ONNX" || ipv350)) {
      layer.kind = QuantLayerKind::kTensorOnly;
      layer.reason = fmt::format("{} {} is not a quantizable layer ({})", source.framework, source.op,
                                 FrameworkOpsList(source.framework, ipv350));
    } else if (!engine_candidate) {
      layer.kind = QuantLayerKind::kTensorOnly;
      layer.reason = framework_rule;
    } else if (op == "Conv2D" || op == "Conv3D") {
      PlanConv(*node, layer);
    } else if (op == "MatMulV2") {
      PlanGemm(*node, layer);
    } else if (op == "Conv2DTranspose") {
      PlanConvTranspose(*node, layer);
    } else if (op == "BatchMatMulV2") {
      PlanMatMul(*node, float16_model, layer);
    } else if (op == "Add") {
      PlanAdd(*node, float16_model, layer);
    } else if (op == "FFN") {
      layer.kind = QuantLayerKind::kWeightOnly;
      layer.reason = "FFN is quantized weight-only (set weight_compress_only: true for it)";
    } else {
      PlanPool(*node, float16_model, layer);
    }
    // The framework's own rule is the one its users look up first.
    if (!layer.config.weight_compress_only && !framework_rule.empty()) layer.reason = framework_rule;
    TurnOffChannelWiseProducts(layer);
    if (layer.kind == QuantLayerKind::kTwoTensorMatMul && layer.reason.empty() && !product.TwoTensorMatMulPays()) {
      layer.notes.push_back(fmt::format("two-tensor BatchMatMulV2 quantization pays off only on Atlas A3, Atlas A2 and "
                                        "Atlas 200I/500 A2 products; on {} (--soc_version {}) it loses accuracy",
                                        product.name, product.soc_version));
    }
    // The user's skip comes first: it is the reason the user will look for.
    if (layer.config.skip) layer.reason = layer.config.skip_reason.empty() ? "skip_layers" : layer.config.skip_reason;
    layer.quantize = layer.reason.empty();
    layers.push_back(std::move(layer));
  }
  return layers;
}

}  // namespace ge::quant
