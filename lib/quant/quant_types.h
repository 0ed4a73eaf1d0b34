// The vocabulary the quantization layer shares: what the AMCT-style config
// asks of one layer, and the factors calibration found for it (one entry of
// the record file). Algorithms (arq.h, ifmr.h, hfmg.h, minmax), the config
// reader (quant_config.h), the record file (quant_record.h), the layer rules
// (layer_support.h) and the deploy rewrite (deploy_rewrite.h) all speak it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ge::quant {

// Activation bit width (AMCT's dst_type; the record's act_type).
enum class QuantDType { kInt8, kInt16 };

// "INT8" / "INT16", as the config and record files spell them.
const char* QuantDTypeName(QuantDType type);

// The activation calibrator of a layer.
enum class ActivationAlgo { kIfmr, kHfmg, kMinMax };

const char* ActivationAlgoName(ActivationAlgo algo);  // "ifmr", "hfmg", "minmax"

// ARQ: weights by min/max, per tensor or per output channel.
struct ArqParams {
  bool channel_wise = true;
  int quant_bits = 8;       // 6, 7 or 8 (6 and 7: Conv2D only)
  bool asymmetric = false;  // only with weight_compress_only
};

// IFMR: percentile anchors, then an MSE search over clip ratios.
struct IfmrParams {
  float search_range_start = 0.7f;
  float search_range_end = 1.3f;
  float search_step = 0.01f;
  float max_percentile = 0.999999f;
  float min_percentile = 0.999999f;
  bool asymmetric = true;  // AMCTConfig.activation_offset unless set here
  QuantDType dst_type = QuantDType::kInt8;
};

// HFMG: histogram, then an L2 search over trimmed ranges.
struct HfmgParams {
  int num_of_bins = 4096;  // 1024, 2048, 4096 or 8192
  bool asymmetric = true;
  QuantDType dst_type = QuantDType::kInt8;
};

// What the config asks for one layer after AMCT's priorities
// (override_layer_configs > override_layer_types > common_config > activation_offset).
struct LayerQuantConfig {
  bool skip = false;           // named in skip_layers / skip_layer_types
  std::string skip_reason;     // e.g. "skip_layers", "skip_layer_types: Conv"
  ArqParams arq;
  ActivationAlgo activation_algo = ActivationAlgo::kIfmr;
  IfmrParams ifmr;
  HfmgParams hfmg;             // used when activation_algo == kHfmg
  bool weight_compress_only = false;
  bool bias_correction = false;  // ge's extension (bias_correction.h)
  float smooth_quant_alpha = 0;  // ge's extension (smooth_quant.h); 0: off
  bool cross_layer_equalization = false;  // ge's extension (cross_layer_equalization.h)
  bool skip_fusion = false;    // named in skip_fusion_layers, or do_fusion false

  QuantDType dst_type() const {
    return activation_algo == ActivationAlgo::kHfmg ? hfmg.dst_type : ifmr.dst_type;
  }
  bool asymmetric_activations() const {
    return activation_algo == ActivationAlgo::kHfmg ? hfmg.asymmetric : ifmr.asymmetric;
  }
};

// Activation factors (AMCT's scale_d / offset_d): q = clamp(rint(x / scale) + offset).
struct ActivationQuantParams {
  float scale = 1.0f;
  int32_t offset = 0;
  QuantDType dst_type = QuantDType::kInt8;
};

// Weight factors (scale_w / offset_w): one entry per tensor, or one per output
// channel. q = clamp(rint(w / scale) + offset), w ~ (q - offset) * scale.
struct WeightQuantParams {
  std::vector<float> scale;
  std::vector<int32_t> offset;
  int quant_bits = 8;
};

// One layer of the record file.
struct LayerRecord {
  std::optional<ActivationQuantParams> activation;         // absent for weight-only layers
  std::optional<ActivationQuantParams> second_activation;  // BatchMatMulV2 with two tensor inputs: x2's
  std::optional<WeightQuantParams> weights;                // absent for tensor-only layers (pooling, Add)
  std::vector<float> bias_correction;                      // per output channel, added to the bias; empty: none
  std::vector<float> smooth_scale;                         // per input channel (smooth_quant.h); empty: none
  std::vector<float> equalization_scale;  // per output channel (cross_layer_equalization.h); empty: none
  bool skip_fusion = false;
};

}  // namespace ge::quant
