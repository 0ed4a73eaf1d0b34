#include "quant/layer_weights.h"

#include <fmt/core.h>

#include <cstring>

#include "device/cpu/kernels/element_types.h"
#include "ge/error.h"
#include "quant/arq.h"

namespace ge::quant {

std::vector<float> TensorAsFloats(const Tensor& tensor, const std::string& what) {
  const auto count = static_cast<size_t>(tensor.num_elements());
  std::vector<float> values(count);
  if (tensor.dtype() == DataType::kFloat) {
    if (count > 0) std::memcpy(values.data(), tensor.data(), count * sizeof(float));
  } else if (tensor.dtype() == DataType::kFloat16) {
    const auto* half = tensor.data_as<_Float16>();
    for (size_t i = 0; i < count; ++i) values[i] = device::cpu::HalfToFloat(half[i]);
  } else {
    throw Error(ErrorCode::kInternal,
                fmt::format("{} is {}, not float32 or float16", what, DataTypeName(tensor.dtype())));
  }
  return values;
}

namespace {

const Tensor& ConstantInput(const Node& node, size_t input, const std::string& layer) {
  const Value* value = node.input(input);
  const Tensor* constant = value != nullptr ? value->constant() : nullptr;
  if (constant == nullptr) {
    throw Error(ErrorCode::kInternal, fmt::format("layer '{}': input {} is not a constant", layer, input));
  }
  return *constant;
}

// An FFN weight [E, K, N] or [K, N] as (experts, rows, columns).
struct ExpertGeometry {
  int64_t experts, rows, columns;
};

ExpertGeometry GeometryOf(const Tensor& weight) {
  const Shape& shape = weight.shape();
  if (shape.rank() == 3) return {shape.dim(0), shape.dim(1), shape.dim(2)};
  return {1, shape.dim(0), shape.dim(1)};
}

void Append(WeightQuantParams& to, const WeightQuantParams& from) {
  to.scale.insert(to.scale.end(), from.scale.begin(), from.scale.end());
  to.offset.insert(to.offset.end(), from.offset.begin(), from.offset.end());
}

WeightQuantParams CalibrateFfn(const Node& node, const QuantLayer& layer) {
  WeightQuantParams params;
  params.quant_bits = layer.config.arq.quant_bits;
  for (size_t input : {ffn::kWeight1, ffn::kWeight2}) {
    const Tensor& weight = ConstantInput(node, input, layer.name);
    const std::vector<float> values = TensorAsFloats(weight, fmt::format("layer '{}' input {}", layer.name, input));
    if (!layer.config.arq.channel_wise) {
      Append(params, ArqCalibrate(values.data(), weight.shape().dims(), 0, layer.config.arq));
      continue;
    }
    const ExpertGeometry g = GeometryOf(weight);
    for (int64_t e = 0; e < g.experts; ++e) {
      Append(params, ArqCalibrate(values.data() + e * g.rows * g.columns, {g.rows, g.columns}, 1, layer.config.arq));
    }
  }
  return params;
}

}  // namespace

WeightQuantParams CalibrateLayerWeights(const Node& node, const QuantLayer& layer) {
  try {
    if (layer.op_type == "FFN") return CalibrateFfn(node, layer);
    if (layer.weight_input < 0) {
      throw Error(ErrorCode::kInternal, fmt::format("layer '{}' has no constant weight", layer.name));
    }
    const Tensor& weight = ConstantInput(node, static_cast<size_t>(layer.weight_input), layer.name);
    const std::vector<float> values = TensorAsFloats(weight, fmt::format("layer '{}' weight", layer.name));
    return ArqCalibrate(values.data(), weight.shape().dims(), layer.weight_channel_axis, layer.config.arq);
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("layer '{}' weights: {}", layer.name, e.what()));
  }
}

FfnQuantizedWeights QuantizeFfnWeights(const Node& ffn, const WeightQuantParams& params) {
  const Tensor& w1 = ConstantInput(ffn, ffn::kWeight1, ffn.name());
  const Tensor& w2 = ConstantInput(ffn, ffn::kWeight2, ffn.name());
  const ExpertGeometry g1 = GeometryOf(w1);
  const ExpertGeometry g2 = GeometryOf(w2);
  const auto channel_wise_count = static_cast<size_t>(g1.experts * g1.columns + g2.experts * g2.columns);
  const bool per_tensor = params.scale.size() == 2 && channel_wise_count != 2;
  if (!per_tensor && params.scale.size() != channel_wise_count) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("layer '{}': the record has {} weight scales; FFN needs {} (E*N1 + E*N2, channel-wise) "
                            "or 2 (one per weight)",
                            ffn.name(), params.scale.size(), channel_wise_count));
  }
  if (params.offset.size() != params.scale.size()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("layer '{}': the record has {} weight scales but {} offsets",
                                                         ffn.name(), params.scale.size(), params.offset.size()));
  }

  FfnQuantizedWeights result;
  size_t next = 0;  // first entry of the current weight's (or expert's) factors
  auto quantize = [&](const Tensor& weight, const ExpertGeometry& g, Tensor& q, Tensor& scale, Tensor& offset) {
    const std::vector<float> values = TensorAsFloats(weight, fmt::format("layer '{}' weight", ffn.name()));
    q = Tensor(DataType::kInt8, weight.shape());
    const Shape param_shape = weight.shape().rank() == 3 ? Shape{g.experts, g.columns} : Shape{g.columns};
    scale = Tensor(DataType::kFloat, param_shape);
    offset = Tensor(DataType::kFloat, param_shape);
    const int64_t block = g.rows * g.columns;
    for (int64_t e = 0; e < g.experts; ++e) {
      const size_t first = per_tensor ? next : next + static_cast<size_t>(e * g.columns);
      const size_t count = per_tensor ? 1 : static_cast<size_t>(g.columns);
      WeightQuantParams expert{{params.scale.begin() + first, params.scale.begin() + first + count},
                               {params.offset.begin() + first, params.offset.begin() + first + count},
                               params.quant_bits};
      const std::vector<int8_t> codes = ArqQuantize(values.data() + e * block, {g.rows, g.columns}, 1, expert);
      std::memcpy(q.data_as<int8_t>() + e * block, codes.data(), codes.size());
      for (int64_t n = 0; n < g.columns; ++n) {
        const size_t k = per_tensor ? 0 : static_cast<size_t>(n);
        scale.data_as<float>()[e * g.columns + n] = expert.scale[k];
        // CANN's antiquant computes (w + offset) * scale, so the offset is -offset_w.
        offset.data_as<float>()[e * g.columns + n] = -static_cast<float>(expert.offset[k]);
      }
    }
    next += per_tensor ? 1 : static_cast<size_t>(g.experts * g.columns);
  };
  quantize(w1, g1, result.weight1, result.antiquant_scale1, result.antiquant_offset1);
  quantize(w2, g2, result.weight2, result.antiquant_scale2, result.antiquant_offset2);
  return result;
}

}  // namespace ge::quant
