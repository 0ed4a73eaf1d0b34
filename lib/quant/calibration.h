// Calibration: runs the float graph on the calibration batches, keeps the
// activations the quantizable layers read, and turns them (and the constant
// weights) into each layer's factors with the layer's algorithms.
//
// The activations stay cached so that the fallback ladder can re-calibrate
// one layer with another algorithm or bit width without running the graph
// again.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "quant/layer_support.h"
#include "quant/quant_record.h"

namespace ge::quant {

class ActivationCache {
 public:
  // Runs `graph` once per batch, keeping every value in `value_names`.
  // `progress(done, total)` is called after each batch.
  ActivationCache(const Graph& graph, const std::vector<std::string>& value_names,
                  const std::vector<std::vector<Tensor>>& batches, const Options& options,
                  const std::function<void(size_t, size_t)>& progress);

  // The value's tensor in every batch; throws for a value not captured.
  const std::vector<Tensor>& batches_of(const std::string& value_name) const;
  bool contains(const std::string& value_name) const { return values_.count(value_name) != 0; }
  // Adds a value derived from captured ones (SmoothQuant's x / s), per batch.
  void Put(const std::string& value_name, std::vector<Tensor> batches) { values_[value_name] = std::move(batches); }

 private:
  std::map<std::string, std::vector<Tensor>> values_;
};

// Where a captured value's channels lie: element i of a batch belongs to
// channel (i / inner) % channels, inner being 1 when the channels are the
// last axis and the product of the dims after axis 1 otherwise (NCHW).
int64_t ChannelInnerSize(const Shape& shape, bool channels_last);

// `batches` with each channel c divided by scales[c] (the values a rewrite
// that rescales channels, SmoothQuant's or cross-layer equalization's, makes
// of captured ones).
std::vector<Tensor> DividedByChannel(const std::vector<Tensor>& batches, const std::vector<float>& scales,
                                     bool channels_last);

// Every activation value the layers to quantize read (each once).
std::vector<std::string> ActivationValues(const std::vector<QuantLayer>& layers);

// The factors of one layer from its config: activations from the cache (for
// every layer that quantizes them) and weights from the graph's constants.
LayerRecord CalibrateLayer(const Graph& graph, const QuantLayer& layer, const ActivationCache& cache);

// CalibrateLayer for every layer to quantize.
QuantRecord CalibrateLayers(const Graph& graph, const std::vector<QuantLayer>& layers, const ActivationCache& cache);

}  // namespace ge::quant
