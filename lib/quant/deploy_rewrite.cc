#include "quant/deploy_rewrite.h"

#include <fmt/core.h>

#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>

#include "ge/error.h"
#include "graph/data_format.h"
#include "quant/arq.h"
#include "quant/layer_weights.h"
#include "quant/quant_conv_fusion.h"
#include "quant/quant_graph_edit.h"
#include "quant/quant_scale_bits.h"
#include "quant/requant_fusion.h"
#include "quant/weight_only_rewrite.h"

namespace ge::quant {
namespace {

DataType IntegerType(QuantDType type) { return type == QuantDType::kInt16 ? DataType::kInt16 : DataType::kInt8; }

// AscendQuant's scale: the reciprocal of the record's scale, CANN style.
float ReciprocalScale(float scale) { return static_cast<float>(1.0 / static_cast<double>(scale)); }

const char* IntegerSuffix(QuantDType type) { return type == QuantDType::kInt16 ? "_int16" : "_int8"; }

class DeployRewriter {
 public:
  DeployRewriter(Graph& graph, const QuantRecord& record) : graph_(graph), record_(record) {}

  void Rewrite(const QuantLayer& layer) {
    Node* node = graph_.FindNode(layer.name);
    if (node == nullptr) {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("quantized layer '{}' ({}) is not a node of graph '{}'",
                                                           layer.name, layer.op_type, graph_.name()));
    }
    auto found = record_.find(layer.name);
    if (found == record_.end()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}' ({}) is to be quantized but the record has no entry for it; calibrate it "
                              "again or add it to skip_layers",
                              layer.name, layer.op_type));
    }
    const LayerRecord& record = found->second;
    skip_fusion_ = layer.config.skip_fusion || record.skip_fusion;
    switch (layer.kind) {
      case QuantLayerKind::kWeighted:
        RewriteWeighted(*node, layer, record);
        break;
      case QuantLayerKind::kTwoTensorMatMul:
        RewriteTwoTensorMatMul(*node, layer, record);
        break;
      case QuantLayerKind::kTensorOnly:
        if (layer.op_type == "Add") {
          RewriteAdd(*node, layer, record);
        } else {
          RewritePool(*node, layer, record);
        }
        break;
      case QuantLayerKind::kWeightOnly:
        RewriteWeightOnlyLayer(graph_, *node, layer, record);
        break;
    }
  }

 private:
  static const ActivationQuantParams& Activation(const QuantLayer& layer, const std::optional<ActivationQuantParams>& a,
                                                 const char* which) {
    if (!a) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the record lacks the {} factors (scale_d/offset_d)", layer.name, which));
    }
    if (!(a->scale > 0) || !std::isfinite(a->scale) || !std::isfinite(1.0f / a->scale)) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': {} scale_d {} must be positive with a finite reciprocal", layer.name, which,
                              a->scale));
    }
    return *a;
  }

  // The AscendQuant of `x` with these factors; one per (value, scale, offset, type).
  Value* Quantized(Value* x, const ActivationQuantParams& a, const QuantLayer& layer) {
    const auto key = std::make_tuple(x, std::bit_cast<uint32_t>(a.scale), a.offset, a.dst_type);
    if (auto it = quantized_.find(key); it != quantized_.end()) return it->second;
    Node* quant = graph_.AddNode("AscendQuant", layer.name + "_quant", {x});
    quant->attrs().Set("scale", ReciprocalScale(a.scale));
    quant->attrs().Set("offset", static_cast<float>(a.offset));
    quant->attrs().Set("sqrt_mode", false);
    quant->attrs().Set("round_mode", std::string("Round"));
    quant->attrs().Set("dst_type", static_cast<int64_t>(IntegerType(a.dst_type)));
    Tag(*quant, layer);
    Value* q = quant->output(0);
    q->set_dtype(IntegerType(a.dst_type));
    q->set_shape(x->shape());
    quantized_[key] = q;
    return q;
  }

  void Tag(Node& node, const QuantLayer& layer) const {
    node.attrs().Set(kQuantLayerAttr, layer.name);
    if (skip_fusion_) node.attrs().Set(kSkipFusionAttr, true);
  }

  // The float bias as int32 = rint(b / (scale_w[c] * scale_d)), or nullptr without bias.
  Value* IntegerBias(const Node& node, int bias_input, const QuantLayer& layer, const std::vector<double>& scales) {
    const Value* bias = node.input(static_cast<size_t>(bias_input));
    if (bias == nullptr) return nullptr;
    const std::vector<float> values = TensorAsFloats(*bias->constant(), fmt::format("layer '{}' bias", layer.name));
    if (scales.size() != 1 && scales.size() != values.size()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the bias has {} values but the record has {} weight scales", layer.name,
                              values.size(), scales.size()));
    }
    Tensor result(DataType::kInt32, bias->shape());
    for (size_t c = 0; c < values.size(); ++c) {
      const double q = std::nearbyint(static_cast<double>(values[c]) / scales[scales.size() == 1 ? 0 : c]);
      if (!(std::fabs(q) <= std::numeric_limits<int32_t>::max())) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("layer '{}': bias[{}] = {} divided by scale_w * scale_d = {} is {}, which overflows "
                                "int32; add '{}' to skip_layers",
                                layer.name, c, values[c], scales[scales.size() == 1 ? 0 : c], q, layer.name));
      }
      result.data_as<int32_t>()[c] = static_cast<int32_t>(q);
    }
    return graph_.AddConstant(graph_.UniqueName(layer.name + "_bias_int32"), std::move(result));
  }

  // The float bias plus the record's bias correction (a zero bias when the
  // layer had none), before it becomes int32.
  void CorrectBias(Node& node, size_t bias_input, const LayerRecord& record, const QuantLayer& layer) {
    const std::vector<float>& shift = record.bias_correction;
    std::vector<float> bias(shift.size(), 0.0f);
    if (const Value* given = node.input(bias_input)) {
      bias = TensorAsFloats(*given->constant(), fmt::format("layer '{}' bias", layer.name));
    }
    if (bias.size() != shift.size()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the record's bias_correction has {} values but the layer has {} output "
                              "channels",
                              layer.name, shift.size(), bias.size()));
    }
    for (size_t c = 0; c < bias.size(); ++c) bias[c] += shift[c];
    const auto channels = static_cast<int64_t>(bias.size());
    node.SetInput(bias_input, graph_.AddConstant(graph_.UniqueName(layer.name + "_bias_corrected"),
                                                 Tensor::FromVector(DataType::kFloat, Shape({channels}), bias)));
  }

  // Points the layer at its integer inputs and puts AscendDequant after it.
  // `scales` are scale_d * scale_w per output channel (or one per tensor).
  void FinishIntegerLayer(Node& node, const QuantLayer& layer, int bias_input, const std::vector<double>& scales,
                          int64_t channel_axis) {
    if (Value* bias = IntegerBias(node, bias_input, layer, scales)) {
      node.SetInput(static_cast<size_t>(bias_input), bias);
    }
    Tag(node, layer);
    Value* y = node.output(0);
    const DataType float_type = y->dtype();
    Tensor deq_scale(DataType::kUInt64, Shape{static_cast<int64_t>(scales.size())});
    for (size_t c = 0; c < scales.size(); ++c) {
      deq_scale.data_as<uint64_t>()[c] = PackDequantScale(static_cast<float>(scales[c]));
    }
    Value* deq = graph_.AddConstant(graph_.UniqueName(layer.name + "_deq_scale"), std::move(deq_scale));
    Node* dequant = InsertAfter(graph_, y, "AscendDequant", layer.name + "_dequant", {deq}, layer.name + "_int32");
    y->set_dtype(DataType::kInt32);
    dequant->attrs().Set("sqrt_mode", false);
    dequant->attrs().Set("relu_flag", false);
    dequant->attrs().Set("dtype", static_cast<int64_t>(float_type));
    dequant->attrs().Set("channel_axis", channel_axis);
    Tag(*dequant, layer);
  }

  static bool IsMatMul(const std::string& op) { return op == "MatMulV2" || op == "BatchMatMulV2"; }

  // The axis of the layer's output that runs over its output channels, for
  // the per-channel dequant scales: -1 (the last) for products; for
  // convolutions 1, or the last axis of a channels-last one (TensorFlow's NHWC).
  static int64_t OutputChannelAxis(const Node& node) {
    if (IsMatMul(node.op_type())) return -1;
    return ChannelsLast(node) ? -1 : 1;
  }

  void RewriteWeighted(Node& node, const QuantLayer& layer, const LayerRecord& record) {
    const ActivationQuantParams& a = Activation(layer, record.activation, "activation");
    if (!record.weights) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the record lacks the weight factors (scale_w)", layer.name));
    }
    const WeightQuantParams& w = *record.weights;
    for (int32_t offset : w.offset) {
      if (offset != 0) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("layer '{}': full quantization takes symmetric weights (offset_w 0), the record has "
                                "offset_w {}",
                                layer.name, offset));
      }
    }
    if (layer.op_type == "BatchMatMulV2" && a.offset != 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': BatchMatMulV2 takes symmetric activations (offset_d 0), the record has "
                              "offset_d {}",
                              layer.name, a.offset));
    }
    const auto weight_input = static_cast<size_t>(layer.weight_input);
    const Tensor& weight = *node.input(weight_input)->constant();
    const std::vector<int64_t>& dims = weight.shape().dims();
    const int64_t channels = dims.at(static_cast<size_t>(layer.weight_channel_axis));
    if (w.scale.size() != 1 && static_cast<int64_t>(w.scale.size()) != channels) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the record has {} weight scales; the weight has {} output channels",
                              layer.name, w.scale.size(), channels));
    }
    const std::vector<float> values = TensorAsFloats(weight, fmt::format("layer '{}' weight", layer.name));
    const std::vector<int8_t> codes = ArqQuantize(values.data(), dims, layer.weight_channel_axis, w);
    Tensor filter = Tensor::FromVector(DataType::kInt8, weight.shape(), codes);

    const int x_input = layer.op_type == "Conv2DTranspose" ? 1 : 0;
    if (!record.bias_correction.empty()) CorrectBias(node, static_cast<size_t>(x_input + 2), record, layer);
    node.SetInput(static_cast<size_t>(x_input), Quantized(node.input(static_cast<size_t>(x_input)), a, layer));
    node.SetInput(weight_input, graph_.AddConstant(graph_.UniqueName(layer.name + "_weight_int8"), std::move(filter)));
    node.attrs().Set("offset_x", static_cast<int64_t>(a.offset));
    std::vector<double> scales;
    for (float s : w.scale) scales.push_back(static_cast<double>(s) * a.scale);
    FinishIntegerLayer(node, layer, x_input + 2, scales, OutputChannelAxis(node));
  }

  void RewriteTwoTensorMatMul(Node& node, const QuantLayer& layer, const LayerRecord& record) {
    const ActivationQuantParams& a1 = Activation(layer, record.activation, "first input");
    const ActivationQuantParams& a2 = Activation(layer, record.second_activation, "second input");
    for (const ActivationQuantParams* a : {&a1, &a2}) {
      if (a->offset != 0 || a->dst_type != QuantDType::kInt8) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("layer '{}': two tensor inputs are quantized INT8 symmetric only; the record has "
                                "{} offset {}",
                                layer.name, QuantDTypeName(a->dst_type), a->offset));
      }
    }
    node.SetInput(0, Quantized(node.input(0), a1, layer));
    node.SetInput(1, Quantized(node.input(1), a2, layer));
    node.attrs().Set("offset_x", int64_t{0});
    FinishIntegerLayer(node, layer, 2, {static_cast<double>(a1.scale) * a2.scale}, -1);
  }

  // AscendAntiQuant: (q - offset_d) * scale_d back to the layer's float type.
  void ConfigureAntiQuant(Node& anti, const ActivationQuantParams& a, DataType float_type, const QuantLayer& layer) {
    anti.attrs().Set("scale", a.scale);
    anti.attrs().Set("offset", -static_cast<float>(a.offset));
    anti.attrs().Set("sqrt_mode", false);
    anti.attrs().Set("dtype", static_cast<int64_t>(float_type));
    Tag(anti, layer);
  }

  void RewritePool(Node& node, const QuantLayer& layer, const LayerRecord& record) {
    const ActivationQuantParams& a = Activation(layer, record.activation, "activation");
    node.SetInput(0, Quantized(node.input(0), a, layer));
    if (layer.op_type == "AvgPoolV2") node.attrs().Set("offset_x", static_cast<int64_t>(a.offset));
    Tag(node, layer);
    Value* y = node.output(0);
    const DataType float_type = y->dtype();
    Node* anti = InsertAfter(graph_, y, "AscendAntiQuant", layer.name + "_antiquant", {},
                             layer.name + IntegerSuffix(a.dst_type));
    y->set_dtype(IntegerType(a.dst_type));
    ConfigureAntiQuant(*anti, a, float_type, layer);
  }

  void RewriteAdd(Node& node, const QuantLayer& layer, const LayerRecord& record) {
    const ActivationQuantParams& a = Activation(layer, record.activation, "activation");
    for (size_t i = 0; i < node.num_inputs(); ++i) {
      Value* input = node.input(i);
      if (input == nullptr || input->constant() != nullptr) continue;  // the planner allows one tensor input
      Value* q = Quantized(input, a, layer);
      Node* anti = graph_.AddNode("AscendAntiQuant", layer.name + "_antiquant", {q});
      ConfigureAntiQuant(*anti, a, input->dtype(), layer);
      anti->output(0)->set_dtype(input->dtype());
      anti->output(0)->set_shape(input->shape());
      node.SetInput(i, anti->output(0));
    }
  }

  Graph& graph_;
  const QuantRecord& record_;
  bool skip_fusion_ = false;  // of the layer being rewritten: its deploy nodes get kSkipFusionAttr
  std::map<std::tuple<Value*, uint32_t, int32_t, QuantDType>, Value*> quantized_;
};

}  // namespace

size_t BypassAntiQuantQuant(Graph& graph) {
  size_t removed = 0;
  for (Node* quant : graph.TopologicalOrder()) {
    if (quant->op_type() != "AscendQuant") continue;
    const Node* anti = quant->input(0) != nullptr ? quant->input(0)->producer() : nullptr;
    if (anti == nullptr || anti->op_type() != "AscendAntiQuant") continue;
    Value* integer = anti->input(0);
    const AttrMap& qa = quant->attrs();
    const AttrMap& aa = anti->attrs();
    const bool reciprocal = qa.GetFloat("scale") == ReciprocalScale(aa.GetFloat("scale")) &&
                            qa.GetFloat("offset") == -aa.GetFloat("offset") && !qa.GetBool("sqrt_mode") &&
                            !aa.GetBool("sqrt_mode") && qa.GetInt("dst_type") == static_cast<int64_t>(integer->dtype());
    if (!reciprocal) continue;
    RedirectUses(graph, quant->output(0), integer, nullptr);
    graph.RemoveNode(quant);
    ++removed;
  }
  return removed;
}

std::unique_ptr<Graph> BuildDeployGraph(const Graph& graph, const std::vector<QuantLayer>& layers,
                                        const QuantRecord& record, const DeployOptions& options) {
  std::unique_ptr<Graph> deploy = graph.Clone();
  DeployRewriter rewriter(*deploy, record);
  for (const QuantLayer& layer : layers) {
    if (layer.quantize) rewriter.Rewrite(layer);
  }
  // Both keep integers flowing between layers and so hide float tensors that
  // the layer-wise comparison (requant_fusion off) looks up by name.
  if (options.requant_fusion) {
    BypassAntiQuantQuant(*deploy);
    FuseRequant(*deploy);
    if (options.fuse_quant_conv) FuseQuantConv(*deploy);
  }
  deploy->RemoveDeadNodes();  // the float weights and bypassed AscendAntiQuant nodes
  return deploy;
}

}  // namespace ge::quant
