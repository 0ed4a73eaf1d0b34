#include "quant/weight_only_rewrite.h"

#include <algorithm>

#include <fmt/core.h>

#include "ge/error.h"
#include "quant/arq.h"
#include "quant/layer_weights.h"
#include "quant/quant_graph_edit.h"

namespace ge::quant {
namespace {

Value* AddLayerConstant(Graph& graph, const QuantLayer& layer, const std::string& suffix, Tensor value) {
  return graph.AddConstant(graph.UniqueName(layer.name + suffix), std::move(value));
}

// WeightQuantBatchMatmulV2 takes a float32 bias; a constant float16 one is widened.
Value* Float32Bias(Graph& graph, const QuantLayer& layer, Value* bias) {
  if (bias == nullptr || bias->dtype() == DataType::kFloat) return bias;
  if (bias->constant() == nullptr) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("layer '{}': weight-only quantization needs a float32 or constant bias, got a {} tensor",
                            layer.name, DataTypeName(bias->dtype())));
  }
  const std::vector<float> values = TensorAsFloats(*bias->constant(), fmt::format("layer '{}' bias", layer.name));
  return AddLayerConstant(graph, layer, "_bias_float32", Tensor::FromVector(DataType::kFloat, bias->shape(), values));
}

void RewriteMatMul(Graph& graph, Node& node, const QuantLayer& layer, const WeightQuantParams& w) {
  const bool is_v2 = layer.op_type == "MatMulV2";
  const bool transpose_x = node.attrs().GetBool(is_v2 ? "transpose_x1" : "adj_x1");
  const bool transpose_weight = node.attrs().GetBool(is_v2 ? "transpose_x2" : "adj_x2");
  const Tensor& weight = *node.input(1)->constant();
  const std::vector<int64_t>& dims = weight.shape().dims();
  const int64_t columns = dims.at(static_cast<size_t>(layer.weight_channel_axis));
  if ((w.scale.size() != 1 && static_cast<int64_t>(w.scale.size()) != columns) || w.offset.size() != w.scale.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("layer '{}': the record has {} weight scales and {} offsets; the weight has {} columns",
                            layer.name, w.scale.size(), w.offset.size(), columns));
  }
  const std::vector<float> values = TensorAsFloats(weight, fmt::format("layer '{}' weight", layer.name));
  const std::vector<int8_t> codes = ArqQuantize(values.data(), dims, layer.weight_channel_axis, w);
  const Shape param_shape{static_cast<int64_t>(w.scale.size())};
  std::vector<float> offsets;
  for (int32_t offset : w.offset) offsets.push_back(-static_cast<float>(offset));

  Value* x = node.input(0);
  Value* bias = Float32Bias(graph, layer, node.input(2));
  Value* weight_int8 =
      AddLayerConstant(graph, layer, "_weight_int8", Tensor::FromVector(DataType::kInt8, weight.shape(), codes));
  Value* scale =
      AddLayerConstant(graph, layer, "_antiquant_scale", Tensor::FromVector(DataType::kFloat, param_shape, w.scale));
  // Symmetric weights have no offset: the optional input stays absent, so the
  // model carries only the int8 weight and one scale per column.
  const bool symmetric = std::all_of(offsets.begin(), offsets.end(), [](float o) { return o == 0.0f; });
  Value* offset = symmetric ? nullptr
                            : AddLayerConstant(graph, layer, "_antiquant_offset",
                                               Tensor::FromVector(DataType::kFloat, param_shape, offsets));
  Node* matmul = ReplaceKeepingName(graph, &node, "WeightQuantBatchMatmulV2",
                                    {x, weight_int8, scale, offset, nullptr, nullptr, bias});
  matmul->attrs().Set("transpose_x", transpose_x);
  matmul->attrs().Set("transpose_weight", transpose_weight);
  matmul->attrs().Set("antiquant_group_size", int64_t{0});
  matmul->attrs().Set(kQuantLayerAttr, layer.name);
}

void RewriteFfn(Graph& graph, Node& node, const QuantLayer& layer, const WeightQuantParams& w) {
  FfnQuantizedWeights q = QuantizeFfnWeights(node, w);
  node.SetInput(ffn::kWeight1, AddLayerConstant(graph, layer, "_weight1_int8", std::move(q.weight1)));
  node.SetInput(ffn::kWeight2, AddLayerConstant(graph, layer, "_weight2_int8", std::move(q.weight2)));
  node.SetInput(ffn::kAntiquantScale1,
                AddLayerConstant(graph, layer, "_antiquant_scale1", std::move(q.antiquant_scale1)));
  node.SetInput(ffn::kAntiquantScale2,
                AddLayerConstant(graph, layer, "_antiquant_scale2", std::move(q.antiquant_scale2)));
  node.SetInput(ffn::kAntiquantOffset1,
                AddLayerConstant(graph, layer, "_antiquant_offset1", std::move(q.antiquant_offset1)));
  node.SetInput(ffn::kAntiquantOffset2,
                AddLayerConstant(graph, layer, "_antiquant_offset2", std::move(q.antiquant_offset2)));
  node.attrs().Set(kQuantLayerAttr, layer.name);
}

}  // namespace

void RewriteWeightOnlyLayer(Graph& graph, Node& node, const QuantLayer& layer, const LayerRecord& record) {
  if (!record.weights) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("layer '{}': the record lacks the weight factors (scale_w/offset_w) of weight-only "
                            "quantization",
                            layer.name));
  }
  if (layer.op_type == "FFN") {
    RewriteFfn(graph, node, layer, *record.weights);
  } else {
    RewriteMatMul(graph, node, layer, *record.weights);
  }
}

}  // namespace ge::quant
