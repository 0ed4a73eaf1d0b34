#include "quant/cross_layer_equalization.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "graph/data_format.h"
#include "quant/layer_weights.h"

namespace ge::quant {
namespace {

constexpr int kMaxSweeps = 32;
constexpr double kSettled = 1e-4;  // largest |log s| of a sweep that ends the sweeps

struct ConvPair {
  Node* first = nullptr;
  Node* second = nullptr;
  Value* between = nullptr;  // conv2's input: conv1's output or the activation's
  // The top of the clip between them (ReLU6: 6); infinity for Relu or nothing.
  float clip_high = std::numeric_limits<float>::infinity();
  bool channels_last = false;
};

bool UsedOnce(const Graph& graph, const Value* value) {
  const std::vector<Value*>& outputs = graph.outputs();
  return value->uses().size() == 1 && std::find(outputs.begin(), outputs.end(), value) == outputs.end();
}

std::optional<float> ScalarConstant(const Value* value) {
  const Tensor* tensor = value != nullptr ? value->constant() : nullptr;
  if (tensor == nullptr || tensor->num_elements() != 1) return std::nullopt;
  return TensorAsFloats(*tensor, "clip bound")[0];
}

// The top of an activation that commutes with a positive per-channel scale
// below it: infinity for Relu, 6 for Relu6, hi for a clip at [0, hi].
std::optional<float> ActivationTop(const Node& node) {
  if (node.op_type() == "Relu" && node.num_inputs() == 1) return std::numeric_limits<float>::infinity();
  if (node.op_type() == "Relu6" && node.num_inputs() == 1) return 6.0f;
  if (node.op_type() == "ClipByValue" && node.num_inputs() == 3) {
    const std::optional<float> low = ScalarConstant(node.input(1)), high = ScalarConstant(node.input(2));
    if (low && high && *low == 0 && *high > 0) return *high;
  }
  return std::nullopt;
}

// A float32 Conv2D with a constant 4-D filter, an optional constant bias and no offset_w.
bool PlainConv(const Node& node) {
  if (node.op_type() != "Conv2D" || node.num_inputs() < 2) return false;
  const Value* filter = node.input(1);
  if (filter == nullptr || filter->constant() == nullptr || filter->constant()->dtype() != DataType::kFloat ||
      filter->shape().rank() != 4) {
    return false;
  }
  const Value* bias = node.num_inputs() > 2 ? node.input(2) : nullptr;
  if (bias != nullptr && (bias->constant() == nullptr || bias->constant()->dtype() != DataType::kFloat)) return false;
  return node.num_inputs() <= 3 || node.input(3) == nullptr;
}

// The convolution `first` feeds, through at most one scale-commuting activation.
std::optional<ConvPair> FindPair(const Graph& graph, Node& first) {
  if (!PlainConv(first) || !UsedOnce(graph, first.output(0))) return std::nullopt;
  ConvPair pair;
  pair.first = &first;
  pair.between = first.output(0);
  Node* next = pair.between->uses()[0].node;
  if (const std::optional<float> top = ActivationTop(*next)) {
    if (next->input(0) != pair.between || !UsedOnce(graph, next->output(0))) return std::nullopt;
    pair.clip_high = *top;
    pair.between = next->output(0);
    next = pair.between->uses()[0].node;
  }
  if (!PlainConv(*next) || next->input(0) != pair.between || ChannelsLast(*next) != ChannelsLast(first)) {
    return std::nullopt;
  }
  const int64_t channels = first.input(1)->shape().dim(0);
  if (next->input(1)->shape().dim(1) * next->attrs().GetInt("groups") != channels) return std::nullopt;
  pair.second = next;
  pair.channels_last = ChannelsLast(first);
  return pair;
}

// A convolution's filter and bias as the sweeps change them.
struct ConvWeights {
  std::vector<int64_t> dims;  // [Cout, Cin/groups, kh, kw]
  int64_t groups = 1;
  std::vector<float> filter;
  std::vector<float> bias;  // empty: none
  bool changed = false;

  int64_t per_output() const { return dims[1] * dims[2] * dims[3]; }
  int64_t kernel() const { return dims[2] * dims[3]; }
};

ConvWeights ReadWeights(const Node& conv) {
  ConvWeights w;
  w.dims = conv.input(1)->shape().dims();
  w.groups = conv.attrs().GetInt("groups");
  w.filter = TensorAsFloats(*conv.input(1)->constant(), fmt::format("layer '{}' filter", conv.name()));
  if (conv.num_inputs() > 2 && conv.input(2) != nullptr) {
    w.bias = TensorAsFloats(*conv.input(2)->constant(), fmt::format("layer '{}' bias", conv.name()));
  }
  return w;
}

// Calls f(index into the filter, input channel) for every filter element.
template <typename F>
void ForEachInputChannel(const ConvWeights& w, F&& f) {
  const int64_t outputs_per_group = w.dims[0] / w.groups, inputs_per_group = w.dims[1];
  for (int64_t o = 0; o < w.dims[0]; ++o) {
    const int64_t first_channel = o / outputs_per_group * inputs_per_group;
    for (int64_t j = 0; j < inputs_per_group; ++j) {
      const auto start = static_cast<size_t>((o * inputs_per_group + j) * w.kernel());
      for (int64_t k = 0; k < w.kernel(); ++k) f(start + static_cast<size_t>(k), first_channel + j);
    }
  }
}

std::vector<double> OutputRanges(const ConvWeights& w) {
  std::vector<double> range(static_cast<size_t>(w.dims[0]), 0.0);
  for (size_t i = 0; i < w.filter.size(); ++i) {
    double& r = range[i / static_cast<size_t>(w.per_output())];
    r = std::max(r, static_cast<double>(std::fabs(w.filter[i])));
  }
  return range;
}

std::vector<double> InputRanges(const ConvWeights& w) {
  std::vector<double> range(static_cast<size_t>(w.dims[1] * w.groups), 0.0);
  ForEachInputChannel(w, [&](size_t i, int64_t c) {
    double& r = range[static_cast<size_t>(c)];
    r = std::max(r, static_cast<double>(std::fabs(w.filter[i])));
  });
  return range;
}

// conv1's output channel i / s_i, conv2's input channel i * s_i.
void Rescale(ConvWeights& first, ConvWeights& second, const std::vector<double>& s) {
  for (size_t i = 0; i < first.filter.size(); ++i) {
    first.filter[i] = static_cast<float>(first.filter[i] / s[i / static_cast<size_t>(first.per_output())]);
  }
  for (size_t c = 0; c < first.bias.size(); ++c) first.bias[c] = static_cast<float>(first.bias[c] / s[c]);
  ForEachInputChannel(second, [&](size_t i, int64_t c) {
    second.filter[i] = static_cast<float>(second.filter[i] * s[static_cast<size_t>(c)]);
  });
  first.changed = second.changed = true;
}

std::vector<double> ChannelMaxima(const std::vector<Tensor>& batches, int64_t channels, bool channels_last) {
  std::vector<double> top(static_cast<size_t>(channels), 0.0);
  for (const Tensor& batch : batches) {
    const std::vector<float> values = TensorAsFloats(batch, "activation");
    const int64_t inner = ChannelInnerSize(batch.shape(), channels_last);
    for (size_t i = 0; i < values.size(); ++i) {
      double& t = top[static_cast<size_t>(static_cast<int64_t>(i) / inner % channels)];
      t = std::max(t, static_cast<double>(values[i]));
    }
  }
  return top;
}

// One pair as the sweeps see it: its total scales so far and, below a clip,
// each channel's least total scale (infinity: the clip acted, the scale stays 1).
struct Sweep {
  ConvPair pair;
  std::vector<double> total;
  std::vector<double> least;  // empty: no clip
};

// Each channel's least total scale under a clip at `high`, from the
// activations' maxima: max / high, or infinity when the clip acted.
std::vector<double> ClipBounds(const std::vector<double>& maxima, float high) {
  std::vector<double> least;
  for (double top : maxima) {
    least.push_back(top >= high * (1 - 1e-6) ? std::numeric_limits<double>::infinity() : top / high);
  }
  return least;
}

// One sweep over the pair: the scales that equalize the ranges, bounded by the clip.
double Equalize(Sweep& sweep, ConvWeights& first, ConvWeights& second) {
  const std::vector<double> r1 = OutputRanges(first), r2 = InputRanges(second);
  std::vector<double> s(r1.size(), 1.0);
  double largest_step = 0;
  for (size_t i = 0; i < r1.size(); ++i) {
    double total = sweep.total[i] * (r1[i] > 0 && r2[i] > 0 ? std::sqrt(r1[i] / r2[i]) : 1.0);
    if (!sweep.least.empty()) total = std::isinf(sweep.least[i]) ? 1.0 : std::max(total, sweep.least[i]);
    s[i] = total / sweep.total[i];
    sweep.total[i] = total;
    largest_step = std::max(largest_step, std::fabs(std::log(s[i])));
  }
  Rescale(first, second, s);
  return largest_step;
}

void WriteWeights(Graph& graph, Node& conv, const ConvWeights& w) {
  conv.SetInput(1, graph.AddConstant(graph.UniqueName(conv.name() + "_equalized_filter"),
                                     Tensor::FromVector(DataType::kFloat, Shape(w.dims), w.filter)));
  if (!w.bias.empty()) {
    conv.SetInput(2, graph.AddConstant(graph.UniqueName(conv.name() + "_equalized_bias"),
                                       Tensor::FromVector(DataType::kFloat, Shape({w.dims[0]}), w.bias)));
  }
}

bool Asks(const QuantLayer* layer) {
  return layer != nullptr && layer->quantize && layer->kind == QuantLayerKind::kWeighted &&
         layer->config.cross_layer_equalization;
}

}  // namespace

std::map<std::string, EqualizedPair> EqualizeConvPairs(Graph& graph, const std::vector<QuantLayer>& layers,
                                                       ActivationCache& cache, const QuantRecord* recorded) {
  std::map<std::string, const QuantLayer*> by_name;
  for (const QuantLayer& layer : layers) by_name[layer.name] = &layer;
  auto layer_of = [&](const Node* node) {
    const auto found = by_name.find(node->name());
    return found != by_name.end() ? found->second : nullptr;
  };

  std::vector<Sweep> sweeps;
  std::map<Node*, ConvWeights> weights;
  for (Node* node : graph.TopologicalOrder()) {
    const QuantLayer* layer = layer_of(node);
    const LayerRecord* record = nullptr;
    if (recorded != nullptr) {
      const auto found = recorded->find(node->name());
      if (found == recorded->end() || found->second.equalization_scale.empty()) continue;
      record = &found->second;
    } else if (!Asks(layer)) {
      continue;
    }
    const std::optional<ConvPair> pair = FindPair(graph, *node);
    if (recorded != nullptr && !pair) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("layer '{}': the record has equalization_scale, but no convolution follows it that "
                              "cross-layer equalization can rescale",
                              node->name()));
    }
    if (!pair || (recorded == nullptr && !Asks(layer_of(pair->second)))) continue;
    const auto channels = static_cast<size_t>(pair->first->input(1)->shape().dim(0));
    Sweep sweep{*pair, std::vector<double>(channels, 1.0), {}};
    if (record != nullptr) {
      if (record->equalization_scale.size() != channels) {
        throw Error(ErrorCode::kInvalidArgument,
                    fmt::format("layer '{}': the record has {} equalization_scale values; the layer has {} output "
                                "channels",
                                node->name(), record->equalization_scale.size(), channels));
      }
      sweep.total.assign(record->equalization_scale.begin(), record->equalization_scale.end());
    } else if (std::isfinite(pair->clip_high)) {
      // Without the activations the clip's effect is unknown: no equalization.
      if (!cache.contains(pair->between->name())) continue;
      sweep.least = ClipBounds(ChannelMaxima(cache.batches_of(pair->between->name()), static_cast<int64_t>(channels),
                                             pair->channels_last),
                               pair->clip_high);
    }
    weights.try_emplace(pair->first, ReadWeights(*pair->first));
    weights.try_emplace(pair->second, ReadWeights(*pair->second));
    sweeps.push_back(std::move(sweep));
  }

  if (recorded != nullptr) {
    for (Sweep& sweep : sweeps) Rescale(weights[sweep.pair.first], weights[sweep.pair.second], sweep.total);
  } else {
    for (int round = 0; round < kMaxSweeps; ++round) {
      double largest_step = 0;
      for (Sweep& sweep : sweeps) {
        largest_step =
            std::max(largest_step, Equalize(sweep, weights[sweep.pair.first], weights[sweep.pair.second]));
      }
      if (largest_step < kSettled) break;
    }
  }

  for (auto& [node, w] : weights) {
    if (w.changed) WriteWeights(graph, *node, w);
  }
  std::map<std::string, EqualizedPair> applied;
  for (const Sweep& sweep : sweeps) {
    EqualizedPair out{sweep.pair.second->name(), {}, 0};
    for (size_t i = 0; i < sweep.total.size(); ++i) {
      out.scales.push_back(static_cast<float>(sweep.total[i]));
      if (!sweep.least.empty() && (std::isinf(sweep.least[i]) || sweep.total[i] == sweep.least[i])) ++out.held_by_clip;
    }
    const std::string& between = sweep.pair.between->name();
    if (cache.contains(between)) {
      cache.Put(between, DividedByChannel(cache.batches_of(between), out.scales, sweep.pair.channels_last));
    }
    applied[sweep.pair.first->name()] = std::move(out);
  }
  return applied;
}

}  // namespace ge::quant
