#include "quant/smooth_quant.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "quant/layer_weights.h"

namespace ge::quant {
namespace {

bool Smoothable(const Graph& graph, const QuantLayer& layer) {
  if (layer.kind != QuantLayerKind::kWeighted || layer.weight_input != 1 || layer.activation_values.empty()) {
    return false;
  }
  if (layer.op_type != "MatMulV2" && layer.op_type != "BatchMatMulV2") return false;
  const Node* node = graph.FindNode(layer.name);
  const Value* weight = node != nullptr ? node->input(1) : nullptr;
  return weight != nullptr && weight->constant() != nullptr && weight->shape().rank() == 2;
}

// x2 is [K, N], or [N, K] when transposed (the weight's channel axis, N, is 0).
int64_t InputChannels(const Tensor& weight, const QuantLayer& layer) {
  return weight.shape().dim(layer.weight_channel_axis == 0 ? 1 : 0);
}

// Where w[k][n] sits in x2, [K, N] or (transposed) [N, K].
size_t WeightIndex(const QuantLayer& layer, int64_t k, int64_t n, int64_t k_count, int64_t n_count) {
  return static_cast<size_t>(layer.weight_channel_axis == 0 ? n * k_count + k : k * n_count + n);
}

std::vector<float> Scales(const std::vector<Tensor>& batches, const Tensor& weight, const QuantLayer& layer) {
  const int64_t k_count = InputChannels(weight, layer);
  const int64_t n_count = weight.num_elements() / std::max<int64_t>(k_count, 1);
  std::vector<double> x_max(static_cast<size_t>(k_count), 0.0), w_max(static_cast<size_t>(k_count), 0.0);
  for (const Tensor& batch : batches) {
    const std::vector<float> values = TensorAsFloats(batch, "activation");
    for (size_t i = 0; i < values.size(); ++i) {
      x_max[i % static_cast<size_t>(k_count)] = std::max(x_max[i % static_cast<size_t>(k_count)],
                                                         static_cast<double>(std::fabs(values[i])));
    }
  }
  const std::vector<float> w = TensorAsFloats(weight, "weight");
  for (int64_t k = 0; k < k_count; ++k) {
    for (int64_t n = 0; n < n_count; ++n) {
      w_max[k] = std::max(w_max[k], static_cast<double>(std::fabs(w[WeightIndex(layer, k, n, k_count, n_count)])));
    }
  }
  const double alpha = layer.config.smooth_quant_alpha;
  std::vector<float> scales;
  for (int64_t k = 0; k < k_count; ++k) {
    // A channel silent on either side keeps its scale.
    const double s = x_max[k] > 0 && w_max[k] > 0 ? std::pow(x_max[k], alpha) / std::pow(w_max[k], 1 - alpha) : 1.0;
    scales.push_back(std::isfinite(s) && s > 0 ? static_cast<float>(s) : 1.0f);
  }
  return scales;
}

// x' = x * (1 / s) before the layer, and the layer's own copy of s * W.
void Apply(Graph& graph, QuantLayer& layer, const std::vector<float>& scales) {
  Node& node = *graph.FindNode(layer.name);
  const Tensor& weight = *node.input(1)->constant();
  const int64_t k_count = InputChannels(weight, layer);
  if (static_cast<int64_t>(scales.size()) != k_count) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("layer '{}': the record has {} smooth_scale values; the layer has {} input channels",
                            layer.name, scales.size(), k_count));
  }
  const int64_t n_count = weight.num_elements() / k_count;
  std::vector<float> w = TensorAsFloats(weight, fmt::format("layer '{}' weight", layer.name));
  for (int64_t k = 0; k < k_count; ++k) {
    for (int64_t n = 0; n < n_count; ++n) w[WeightIndex(layer, k, n, k_count, n_count)] *= scales[k];
  }
  std::vector<float> inverse;
  for (float s : scales) inverse.push_back(1.0f / s);
  Value* x = node.input(0);
  Value* inverse_value = graph.AddConstant(graph.UniqueName(layer.name + "_smooth_inverse"),
                                           Tensor::FromVector(DataType::kFloat, Shape({k_count}), inverse));
  Node* divide = graph.AddNode("Mul", graph.UniqueName(layer.name + "_smooth"), {x, inverse_value});
  divide->output(0)->set_dtype(x->dtype());
  divide->output(0)->set_shape(x->shape());
  node.SetInput(0, divide->output(0));
  node.SetInput(1, graph.AddConstant(graph.UniqueName(layer.name + "_smoothed_weight"),
                                     Tensor::FromVector(DataType::kFloat, weight.shape(), w)));
  layer.activation_values[0] = divide->output(0)->name();
}

}  // namespace

std::map<std::string, std::vector<float>> SmoothProducts(Graph& graph, std::vector<QuantLayer>& layers,
                                                         ActivationCache& cache, const QuantRecord* recorded) {
  std::map<std::string, std::vector<float>> applied;
  for (QuantLayer& layer : layers) {
    if (!layer.quantize || !Smoothable(graph, layer)) continue;
    const std::string x_name = layer.activation_values[0];
    std::vector<float> scales;
    if (recorded != nullptr) {
      const auto found = recorded->find(layer.name);
      if (found == recorded->end() || found->second.smooth_scale.empty()) continue;
      scales = found->second.smooth_scale;
    } else {
      if (!(layer.config.smooth_quant_alpha > 0)) continue;
      scales = Scales(cache.batches_of(x_name), *graph.FindNode(layer.name)->input(1)->constant(), layer);
    }
    Apply(graph, layer, scales);
    if (cache.contains(x_name)) {
      cache.Put(layer.activation_values[0], DividedByChannel(cache.batches_of(x_name), scales, /*channels_last=*/true));
    }
    applied[layer.name] = std::move(scales);
  }
  return applied;
}

}  // namespace ge::quant
