#include "quant/layer_sensitivity.h"

#include "quant/arq.h"
#include "quant/fake_quant.h"
#include "quant/layer_weights.h"

namespace ge::quant {
namespace {

// sum (x - dequant(quant(x)))^2 / sum x^2 over every batch of a float activation.
double ActivationNoiseRatio(const std::vector<Tensor>& batches, const ActivationQuantParams& a) {
  double noise = 0, power = 0;
  for (const Tensor& batch : batches) {
    const std::vector<float> values = TensorAsFloats(batch, "activation");
    for (const float x : values) {
      const double restored = FakeQuantize(x, a);
      noise += (x - restored) * (x - restored);
      power += static_cast<double>(x) * x;
    }
  }
  return power > 0 ? noise / power : 0.0;
}

}  // namespace

double LayerSensitivity(const Graph& graph, const QuantLayer& layer, const LayerRecord& record,
                        const ActivationCache& cache) {
  double sensitivity = 0;
  const std::optional<ActivationQuantParams>* params[] = {&record.activation, &record.second_activation};
  for (size_t i = 0; i < layer.activation_values.size() && i < 2; ++i) {
    if (*params[i]) sensitivity += ActivationNoiseRatio(cache.batches_of(layer.activation_values[i]), **params[i]);
  }
  const Node* node = graph.FindNode(layer.name);
  if (record.weights && node != nullptr && layer.weight_input >= 0) {
    const Value* weight = node->input(static_cast<size_t>(layer.weight_input));
    if (weight != nullptr && weight->constant() != nullptr) {
      const std::vector<float> w = TensorAsFloats(*weight->constant(), "weight");
      sensitivity += ArqNoiseRatio(w.data(), weight->shape().dims(), layer.weight_channel_axis, *record.weights);
    }
  }
  return sensitivity;
}

}  // namespace ge::quant
