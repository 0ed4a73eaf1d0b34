// The quantization config file: AMCT's "simple config" (protobuf text format,
// schema quant/proto/amct_config.proto), read, validated and resolved per layer.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "quant/quant_types.h"

namespace ge::quant {

namespace proto {
class AMCTConfig;
}

class QuantConfig {
 public:
  // AMCT's defaults: batch_num 1, asymmetric activations, fusion on, IFMR + ARQ int8 everywhere.
  QuantConfig();
  explicit QuantConfig(const proto::AMCTConfig& config);
  QuantConfig(const QuantConfig& other);
  QuantConfig& operator=(const QuantConfig& other);
  QuantConfig(QuantConfig&&) noexcept;
  QuantConfig& operator=(QuantConfig&&) noexcept;
  ~QuantConfig();

  uint32_t batch_num() const;
  bool activation_offset() const;
  bool do_fusion() const;

  // What the config asks of one layer. `type_names` are the layer's op type
  // under every name a user may write (e.g. {"Conv2D", "Conv"}: Ascend IR and
  // ONNX); skip_layer_types / override_layer_types match any of them.
  // Priority: override_layer_configs > override_layer_types > common_config;
  // the chosen block is used whole (what it leaves unset takes the schema
  // default), and activation_offset is the default of ifmr/hfmg `asymmetric`.
  LayerQuantConfig ForLayer(const std::string& layer_name, const std::vector<std::string>& type_names) const;

  // Names in skip_layers, override_layer_configs and skip_fusion_layers for
  // which `exists` is false, each once, in file order.
  std::vector<std::string> UnknownLayerNames(const std::function<bool(const std::string&)>& exists) const;

  // The config in protobuf text format (what ParseQuantConfig reads back).
  std::string ToText() const;

  // Writes `cfg`'s calibration (arq, ifmr or hfmg, weight_compress_only) as the
  // override_layer_configs entry of `layer_name`, replacing an existing one.
  // skip and skip_fusion are not part of it (see AddSkipLayer). kMinMax has no
  // config form and is rejected.
  void SetLayerOverride(const std::string& layer_name, const LayerQuantConfig& cfg);
  // Adds `name` to skip_layers unless it is there.
  void AddSkipLayer(const std::string& name);

  // The ARQ quant_bits of Conv2D layers with INT8 activations whose
  // calibration block leaves it unset (the schema's default is 8). Quantize
  // sets 7 for a CPU without VNNI: its int8 kernels then multiply the filters
  // once instead of twice (device/cpu/kernels/int8_pair_sums.h). INT16
  // activations run a kernel that gains nothing from it.
  void SetDefaultConvWeightBits(int bits) { default_conv_weight_bits_ = bits; }

  const proto::AMCTConfig& proto() const { return *config_; }

 private:
  std::unique_ptr<proto::AMCTConfig> config_;
  int default_conv_weight_bits_ = 8;
};

// Parses and validates config text; `origin` (usually the file name) starts
// every error message, followed by line:column where known and the field path.
QuantConfig ParseQuantConfig(const std::string& text, const std::string& origin);

// Reads and parses a config file; a missing or unreadable file is kNotFound / kIoError.
QuantConfig LoadQuantConfig(const std::string& path);

}  // namespace ge::quant
