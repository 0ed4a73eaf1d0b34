#include "quant/calibration.h"

#include "quant/bias_correction.h"

#include <fmt/core.h>

#include "ge/error.h"
#include "quant/activation_capture.h"
#include "quant/activation_observer.h"
#include "quant/layer_weights.h"

namespace ge::quant {

ActivationCache::ActivationCache(const Graph& graph, const std::vector<std::string>& value_names,
                                 const std::vector<std::vector<Tensor>>& batches, const Options& options,
                                 const std::function<void(size_t, size_t)>& progress) {
  if (value_names.empty()) return;
  ActivationCapture capture(graph, value_names, options);
  for (size_t b = 0; b < batches.size(); ++b) {
    std::vector<Tensor> captured = capture.Run(batches[b]);
    for (size_t i = 0; i < captured.size(); ++i) values_[capture.values()[i].name].push_back(std::move(captured[i]));
    if (progress) progress(b + 1, batches.size());
  }
}

const std::vector<Tensor>& ActivationCache::batches_of(const std::string& value_name) const {
  auto found = values_.find(value_name);
  if (found == values_.end()) {
    throw Error(ErrorCode::kInternal, fmt::format("calibration: activation '{}' was not captured", value_name));
  }
  return found->second;
}

int64_t ChannelInnerSize(const Shape& shape, bool channels_last) {
  int64_t inner = 1;
  if (!channels_last) {
    for (size_t d = 2; d < shape.rank(); ++d) inner *= shape.dim(d);
  }
  return inner;
}

std::vector<Tensor> DividedByChannel(const std::vector<Tensor>& batches, const std::vector<float>& scales,
                                     bool channels_last) {
  std::vector<Tensor> out;
  const auto channels = static_cast<int64_t>(scales.size());
  for (const Tensor& batch : batches) {
    std::vector<float> values = TensorAsFloats(batch, "activation");
    const int64_t inner = ChannelInnerSize(batch.shape(), channels_last);
    for (size_t i = 0; i < values.size(); ++i) {
      values[i] /= scales[static_cast<size_t>(static_cast<int64_t>(i) / inner % channels)];
    }
    out.push_back(Tensor::FromVector(DataType::kFloat, batch.shape(), values));
  }
  return out;
}

std::vector<std::string> ActivationValues(const std::vector<QuantLayer>& layers) {
  std::vector<std::string> names;
  for (const QuantLayer& layer : layers) {
    if (!layer.quantize) continue;
    for (const std::string& value : layer.activation_values) {
      if (std::find(names.begin(), names.end(), value) == names.end()) names.push_back(value);
    }
  }
  return names;
}

namespace {

ActivationQuantParams CalibrateActivation(const QuantLayer& layer, const LayerQuantConfig& config,
                                          const std::vector<Tensor>& batches) {
  std::unique_ptr<ActivationObserver> observer = MakeActivationObserver(config);
  for (const Tensor& tensor : batches) {
    if (tensor.dtype() != DataType::kFloat) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("layer '{}': calibration reads float32 activations, got {}", layer.name,
                              DataTypeName(tensor.dtype())));
    }
    observer->Observe(tensor.values<float>());
  }
  return observer->Finish();
}

}  // namespace

LayerRecord CalibrateLayer(const Graph& graph, const QuantLayer& layer, const ActivationCache& cache) {
  LayerRecord record;
  record.skip_fusion = layer.config.skip_fusion;
  LayerQuantConfig config = layer.config;
  if (layer.kind == QuantLayerKind::kTwoTensorMatMul) {
    // Two tensor inputs are quantized INT8 symmetric only (the seed's rule).
    config.ifmr.asymmetric = config.hfmg.asymmetric = false;
    config.ifmr.dst_type = config.hfmg.dst_type = QuantDType::kInt8;
  }
  if (layer.kind != QuantLayerKind::kWeightOnly) {
    if (layer.activation_values.empty()) {
      throw Error(ErrorCode::kInternal, fmt::format("layer '{}': no activation to calibrate", layer.name));
    }
    record.activation = CalibrateActivation(layer, config, cache.batches_of(layer.activation_values[0]));
    if (layer.kind == QuantLayerKind::kTwoTensorMatMul) {
      record.second_activation = CalibrateActivation(layer, config, cache.batches_of(layer.activation_values.at(1)));
    }
  }
  if (layer.weight_input >= 0) {
    const Node* node = graph.FindNode(layer.name);
    if (node == nullptr) throw Error(ErrorCode::kInternal, fmt::format("layer '{}' is not in the graph", layer.name));
    record.weights = CalibrateLayerWeights(*node, layer);
    if (layer.config.bias_correction && layer.kind == QuantLayerKind::kWeighted) {
      record.bias_correction = BiasCorrection(*node, layer, record, cache.batches_of(layer.activation_values[0]));
    }
  }
  return record;
}

QuantRecord CalibrateLayers(const Graph& graph, const std::vector<QuantLayer>& layers, const ActivationCache& cache) {
  QuantRecord record;
  for (const QuantLayer& layer : layers) {
    if (layer.quantize) record[layer.name] = CalibrateLayer(graph, layer, cache);
  }
  return record;
}

}  // namespace ge::quant
