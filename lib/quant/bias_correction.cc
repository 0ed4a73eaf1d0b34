#include "quant/bias_correction.h"

#include "graph/data_format.h"
#include "quant/arq.h"
#include "quant/fake_quant.h"
#include "quant/layer_weights.h"

namespace ge::quant {
namespace {

// The per-channel means of x and of x fake-quantized, channels on `axis` (-1: the last).
void ChannelMeans(const std::vector<Tensor>& batches, int axis_from_end, const ActivationQuantParams& a,
                  int64_t channels, std::vector<double>& mean_x, std::vector<double>& mean_xq) {
  mean_x.assign(static_cast<size_t>(channels), 0.0);
  mean_xq.assign(static_cast<size_t>(channels), 0.0);
  int64_t per_channel = 0;
  for (const Tensor& batch : batches) {
    const std::vector<float> values = TensorAsFloats(batch, "activation");
    const std::vector<int64_t>& dims = batch.shape().dims();
    // The channel axis splits the tensor into outer x channels x inner.
    const size_t axis = dims.size() - 1 - static_cast<size_t>(axis_from_end);
    int64_t inner = 1;
    for (size_t d = axis + 1; d < dims.size(); ++d) inner *= dims[d];
    for (size_t i = 0; i < values.size(); ++i) {
      const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
      mean_x[c] += values[i];
      mean_xq[c] += FakeQuantize(values[i], a);
    }
    per_channel += static_cast<int64_t>(values.size()) / channels;
  }
  for (int64_t c = 0; c < channels; ++c) {
    mean_x[c] /= static_cast<double>(per_channel);
    mean_xq[c] /= static_cast<double>(per_channel);
  }
}

}  // namespace

std::vector<float> BiasCorrection(const Node& node, const QuantLayer& layer, const LayerRecord& record,
                                  const std::vector<Tensor>& activations) {
  const std::string& op = node.op_type();
  const bool conv = op == "Conv2D";
  if ((!conv && op != "MatMulV2" && op != "BatchMatMulV2") || !record.activation || !record.weights ||
      layer.weight_input != 1 || activations.empty()) {
    return {};
  }
  const Value* weight = node.input(1);
  if (weight == nullptr || weight->constant() == nullptr) return {};
  const std::vector<int64_t>& dims = weight->shape().dims();
  if ((conv && dims.size() != 4) || (!conv && dims.size() != 2)) return {};
  const std::vector<float> w = TensorAsFloats(*weight->constant(), "weight");
  const std::vector<float> wq = ArqRestore(w.data(), dims, layer.weight_channel_axis, *record.weights);

  // The activation's channels: a convolution's C (axis 1, or the last for
  // NHWC), a product's K (the last axis of x1).
  const bool channels_last = ChannelsLast(node);
  const int rank = static_cast<int>(activations.front().shape().rank());
  const int axis_from_end = conv && !channels_last ? rank - 2 : 0;
  const int64_t groups = conv ? node.attrs().GetInt("groups") : 1;
  const int64_t in_channels = conv ? dims[1] * groups : (layer.weight_channel_axis == 1 ? dims[0] : dims[1]);
  std::vector<double> mean_x, mean_xq;
  ChannelMeans(activations, axis_from_end, *record.activation, in_channels, mean_x, mean_xq);

  std::vector<float> shift;
  if (conv) {  // filter [Cout, Cin/groups, kh, kw]
    const int64_t cout = dims[0], group_in = dims[1], taps = dims[2] * dims[3], per_group = cout / groups;
    for (int64_t o = 0; o < cout; ++o) {
      double s = 0;
      for (int64_t ci = 0; ci < group_in; ++ci) {
        const int64_t channel = (o / per_group) * group_in + ci;
        for (int64_t t = 0; t < taps; ++t) {
          const size_t i = static_cast<size_t>((o * group_in + ci) * taps + t);
          s += w[i] * mean_x[channel] - wq[i] * mean_xq[channel];
        }
      }
      shift.push_back(static_cast<float>(s));
    }
    return shift;
  }
  // x2 [K, N] (channel axis 1) or [N, K] (transposed: channel axis 0).
  const bool transposed = layer.weight_channel_axis == 0;
  const int64_t k_count = transposed ? dims[1] : dims[0], n_count = transposed ? dims[0] : dims[1];
  for (int64_t n = 0; n < n_count; ++n) {
    double s = 0;
    for (int64_t k = 0; k < k_count; ++k) {
      const size_t i = static_cast<size_t>(transposed ? n * k_count + k : k * n_count + n);
      s += w[i] * mean_x[k] - wq[i] * mean_xq[k];
    }
    shift.push_back(static_cast<float>(s));
  }
  return shift;
}

}  // namespace ge::quant
