#include "quant/quant_config.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "quant/proto/amct_config.pb.h"
#include "quant/ifmr.h"
#include "quant/proto_text.h"

namespace ge::quant {
namespace {

using google::protobuf::TextFormat;

// Reports semantic errors as "<origin>:<line>:<col>: <field path>: <problem>",
// the location coming from the parse tree when the config was read from text.
class ConfigChecker {
 public:
  // `tree` (may be null) holds the locations of `config` as parsed from text.
  ConfigChecker(const std::string& origin, const proto::AMCTConfig& config, const TextFormat::ParseInfoTree* tree)
      : origin_(origin), config_(config), tree_(tree) {}

  void Check() const {
    const proto::AMCTConfig& config = config_;
    if (config.batch_num() < 1) Fail({{"batch_num"}}, "batch_num", fmt::format("{} must be >= 1", config.batch_num()));
    if (config.has_common_config()) {
      CheckCalibration(config.common_config(), {{"common_config"}}, "common_config");
    }
    std::set<std::string> types;
    for (int i = 0; i < config.override_layer_types_size(); ++i) {
      const auto& entry = config.override_layer_types(i);
      const std::vector<FieldStep> steps = {{"override_layer_types", i}};
      const std::string display = fmt::format("override_layer_types[{}] ({})", i, entry.layer_type());
      if (entry.layer_type().empty()) Fail(steps, display, "layer_type is missing");
      if (!types.insert(entry.layer_type()).second) Fail(steps, display, "the layer type appears twice");
      CheckCalibration(entry.calibration_config(), Append(steps, "calibration_config"),
                       display + ".calibration_config");
    }
    std::set<std::string> names;
    for (int i = 0; i < config.override_layer_configs_size(); ++i) {
      const auto& entry = config.override_layer_configs(i);
      const std::vector<FieldStep> steps = {{"override_layer_configs", i}};
      const std::string display = fmt::format("override_layer_configs[{}] ({})", i, entry.layer_name());
      if (entry.layer_name().empty()) Fail(steps, display, "layer_name is missing");
      if (!names.insert(entry.layer_name()).second) Fail(steps, display, "the layer name appears twice");
      CheckCalibration(entry.calibration_config(), Append(steps, "calibration_config"),
                       display + ".calibration_config");
    }
  }

  void CheckCalibration(const proto::CalibrationConfig& c, const std::vector<FieldStep>& steps,
                        const std::string& display) const {
    if (!(c.smooth_quant_alpha() >= 0 && c.smooth_quant_alpha() <= 1)) {
      Fail(Append(steps, "smooth_quant_alpha"), display + ".smooth_quant_alpha",
           fmt::format("{} is not in [0, 1] (0: off)", c.smooth_quant_alpha()));
    }
    if (c.has_arq_quantize()) {
      const auto& arq = c.arq_quantize();
      const auto at = Append(steps, "arq_quantize");
      const std::string name = display + ".arq_quantize";
      if (arq.quant_bits() < 6 || arq.quant_bits() > 8) {
        Fail(Append(at, "quant_bits"), name + ".quant_bits", fmt::format("{} is not one of 6, 7, 8", arq.quant_bits()));
      }
      if (arq.asymmetric() && !c.weight_compress_only()) {
        Fail(Append(at, "asymmetric"), name + ".asymmetric", "true is valid only with weight_compress_only: true");
      }
    }
    if (c.has_ifmr_quantize()) {
      const auto& ifmr = c.ifmr_quantize();
      const auto at = Append(steps, "ifmr_quantize");
      const std::string name = display + ".ifmr_quantize";
      const float start = ifmr.search_range_start(), end = ifmr.search_range_end(), step = ifmr.search_step();
      if (!(start > 0.0f && start < end && std::isfinite(end))) {
        Fail(Append(at, ifmr.has_search_range_start() ? "search_range_start" : "search_range_end"),
             name + ".search_range",
             fmt::format("start {} and end {} must satisfy 0 < start < end (finite)", start, end));
      }
      if (!(step > 0.0f)) {
        Fail(Append(at, "search_step"), name + ".search_step", fmt::format("{} must be > 0", step));
      }
      const double candidates =
          IfmrCandidateCount({.search_range_start = start, .search_range_end = end, .search_step = step});
      if (candidates > kMaxIfmrCandidates) {
        Fail(Append(at, "search_step"), name + ".search_step",
             fmt::format("{} makes {} clip ratios from {} to {}; at most {} are searched, so the step must be at "
                         "least {}",
                         step, candidates, start, end, kMaxIfmrCandidates, (end - start) / (kMaxIfmrCandidates - 1)));
      }
      CheckPercentile(ifmr.max_percentile(), Append(at, "max_percentile"), name + ".max_percentile");
      CheckPercentile(ifmr.min_percentile(), Append(at, "min_percentile"), name + ".min_percentile");
    }
    if (c.has_hfmg_quantize()) {
      const int bins = c.hfmg_quantize().num_of_bins();
      if (bins != 1024 && bins != 2048 && bins != 4096 && bins != 8192) {
        Fail(Append(Append(steps, "hfmg_quantize"), "num_of_bins"), display + ".hfmg_quantize.num_of_bins",
             fmt::format("{} is not one of 1024, 2048, 4096, 8192", bins));
      }
    }
  }

 private:
  static std::vector<FieldStep> Append(std::vector<FieldStep> steps, const char* field) {
    steps.push_back({field});
    return steps;
  }

  void CheckPercentile(float value, const std::vector<FieldStep>& steps, const std::string& display) const {
    if (!(value > 0.5f && value <= 1.0f)) Fail(steps, display, fmt::format("{} is not in (0.5, 1]", value));
  }

  [[noreturn]] void Fail(const std::vector<FieldStep>& steps, const std::string& display,
                         const std::string& problem) const {
    const std::string where = tree_ ? LocateField(origin_, config_, *tree_, steps) : origin_;
    // Layer names and types come from the file: escaped so that the message stays one line.
    throw Error(ErrorCode::kInvalidArgument, EscapeForMessage(fmt::format("{}: {}: {}", where, display, problem)));
  }

  const std::string& origin_;
  const proto::AMCTConfig& config_;
  const TextFormat::ParseInfoTree* tree_;
};

bool Contains(const google::protobuf::RepeatedPtrField<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// The schema's values (including defaults) of `c` as the shared struct;
// activation_offset stands in for an unset ifmr/hfmg `asymmetric`.
void ApplyCalibration(const proto::CalibrationConfig& c, bool activation_offset, LayerQuantConfig* out) {
  const auto& arq = c.arq_quantize();
  out->arq.channel_wise = arq.channel_wise();
  out->arq.quant_bits = arq.quant_bits();
  out->arq.asymmetric = arq.asymmetric();
  const auto dst_type = [](proto::DataType type) {
    return type == proto::INT16 ? QuantDType::kInt16 : QuantDType::kInt8;
  };
  const auto& ifmr = c.ifmr_quantize();
  out->ifmr.search_range_start = ifmr.search_range_start();
  out->ifmr.search_range_end = ifmr.search_range_end();
  out->ifmr.search_step = ifmr.search_step();
  out->ifmr.max_percentile = ifmr.max_percentile();
  out->ifmr.min_percentile = ifmr.min_percentile();
  out->ifmr.asymmetric = ifmr.has_asymmetric() ? ifmr.asymmetric() : activation_offset;
  out->ifmr.dst_type = dst_type(ifmr.dst_type());
  const auto& hfmg = c.hfmg_quantize();
  out->hfmg.num_of_bins = hfmg.num_of_bins();
  out->hfmg.asymmetric = hfmg.has_asymmetric() ? hfmg.asymmetric() : activation_offset;
  out->hfmg.dst_type = dst_type(hfmg.dst_type());
  out->activation_algo = c.has_hfmg_quantize() ? ActivationAlgo::kHfmg : ActivationAlgo::kIfmr;
  out->weight_compress_only = c.weight_compress_only();
  out->bias_correction = c.bias_correction();
  out->smooth_quant_alpha = c.smooth_quant_alpha();
  out->cross_layer_equalization = c.cross_layer_equalization();
}

// The calibration block of `cfg`, every value explicit.
proto::CalibrationConfig CalibrationOf(const LayerQuantConfig& cfg) {
  proto::CalibrationConfig c;
  auto* arq = c.mutable_arq_quantize();
  arq->set_channel_wise(cfg.arq.channel_wise);
  arq->set_quant_bits(cfg.arq.quant_bits);
  arq->set_asymmetric(cfg.arq.asymmetric);
  const auto dst_type = [](QuantDType type) { return type == QuantDType::kInt16 ? proto::INT16 : proto::INT8; };
  switch (cfg.activation_algo) {
    case ActivationAlgo::kIfmr: {
      auto* ifmr = c.mutable_ifmr_quantize();
      ifmr->set_search_range_start(cfg.ifmr.search_range_start);
      ifmr->set_search_range_end(cfg.ifmr.search_range_end);
      ifmr->set_search_step(cfg.ifmr.search_step);
      ifmr->set_max_percentile(cfg.ifmr.max_percentile);
      ifmr->set_min_percentile(cfg.ifmr.min_percentile);
      ifmr->set_asymmetric(cfg.ifmr.asymmetric);
      ifmr->set_dst_type(dst_type(cfg.ifmr.dst_type));
      break;
    }
    case ActivationAlgo::kHfmg: {
      auto* hfmg = c.mutable_hfmg_quantize();
      hfmg->set_num_of_bins(cfg.hfmg.num_of_bins);
      hfmg->set_asymmetric(cfg.hfmg.asymmetric);
      hfmg->set_dst_type(dst_type(cfg.hfmg.dst_type));
      break;
    }
    case ActivationAlgo::kMinMax:
      throw Error(ErrorCode::kUnsupported,
                  "SetLayerOverride: the minmax activation calibrator has no config form (valid: ifmr, hfmg)");
  }
  c.set_weight_compress_only(cfg.weight_compress_only);
  if (cfg.bias_correction) c.set_bias_correction(true);
  if (cfg.smooth_quant_alpha > 0) c.set_smooth_quant_alpha(cfg.smooth_quant_alpha);
  if (cfg.cross_layer_equalization) c.set_cross_layer_equalization(true);
  return c;
}

}  // namespace

QuantConfig::QuantConfig() : config_(std::make_unique<proto::AMCTConfig>()) {}

QuantConfig::QuantConfig(const proto::AMCTConfig& config) : config_(std::make_unique<proto::AMCTConfig>(config)) {
  ConfigChecker("quant config", *config_, nullptr).Check();
}

QuantConfig::QuantConfig(const QuantConfig& other) : config_(std::make_unique<proto::AMCTConfig>(*other.config_)) {}

QuantConfig& QuantConfig::operator=(const QuantConfig& other) {
  if (this != &other) *config_ = *other.config_;
  return *this;
}

// A moved-from config is left with AMCT's defaults rather than empty.
QuantConfig::QuantConfig(QuantConfig&& other) noexcept : config_(std::move(other.config_)) {
  other.config_ = std::make_unique<proto::AMCTConfig>();
}

QuantConfig& QuantConfig::operator=(QuantConfig&& other) noexcept {
  if (this != &other) config_->Swap(other.config_.get());
  return *this;
}

QuantConfig::~QuantConfig() = default;

uint32_t QuantConfig::batch_num() const { return config_->batch_num(); }
bool QuantConfig::activation_offset() const { return config_->activation_offset(); }
bool QuantConfig::do_fusion() const { return config_->do_fusion(); }

LayerQuantConfig QuantConfig::ForLayer(const std::string& layer_name,
                                       const std::vector<std::string>& type_names) const {
  const auto has_type = [&](const std::string& type) {
    return std::find(type_names.begin(), type_names.end(), type) != type_names.end();
  };
  const proto::CalibrationConfig* chosen = &config_->common_config();
  bool overridden = false;
  for (const auto& entry : config_->override_layer_configs()) {
    if (entry.layer_name() == layer_name) {
      chosen = &entry.calibration_config();
      overridden = true;
      break;
    }
  }
  for (int i = 0; !overridden && i < config_->override_layer_types_size(); ++i) {
    const auto& entry = config_->override_layer_types(i);
    if (has_type(entry.layer_type())) {
      chosen = &entry.calibration_config();
      overridden = true;
    }
  }

  LayerQuantConfig cfg;
  ApplyCalibration(*chosen, config_->activation_offset(), &cfg);
  if (!chosen->arq_quantize().has_quant_bits() && has_type("Conv2D") && cfg.dst_type() == QuantDType::kInt8 &&
      !cfg.weight_compress_only) {
    cfg.arq.quant_bits = default_conv_weight_bits_;
  }
  cfg.skip_fusion = !config_->do_fusion() || Contains(config_->skip_fusion_layers(), layer_name);
  if (Contains(config_->skip_layers(), layer_name)) {
    cfg.skip = true;
    cfg.skip_reason = "skip_layers";
    return cfg;
  }
  for (const auto& type : config_->skip_layer_types()) {
    if (has_type(type)) {
      cfg.skip = true;
      cfg.skip_reason = "skip_layer_types: " + type;
      return cfg;
    }
  }
  if (cfg.arq.quant_bits < 8 && !has_type("Conv2D")) {
    cfg.skip = true;
    cfg.skip_reason = "quant_bits 6 or 7 applies to Conv2D only";
  }
  return cfg;
}

std::vector<std::string> QuantConfig::UnknownLayerNames(const std::function<bool(const std::string&)>& exists) const {
  std::vector<std::string> unknown;
  const auto check = [&](const std::string& name) {
    if (!exists(name) && std::find(unknown.begin(), unknown.end(), name) == unknown.end()) unknown.push_back(name);
  };
  for (const auto& name : config_->skip_layers()) check(name);
  for (const auto& entry : config_->override_layer_configs()) check(entry.layer_name());
  for (const auto& name : config_->skip_fusion_layers()) check(name);
  return unknown;
}

std::string QuantConfig::ToText() const {
  std::string text;
  TextFormat::PrintToString(*config_, &text);
  return text;
}

void QuantConfig::SetLayerOverride(const std::string& layer_name, const LayerQuantConfig& cfg) {
  if (layer_name.empty()) throw Error(ErrorCode::kInvalidArgument, "SetLayerOverride: the layer name is empty");
  proto::CalibrationConfig calibration = CalibrationOf(cfg);
  ConfigChecker("SetLayerOverride", *config_, nullptr)
      .CheckCalibration(calibration, {}, fmt::format("override_layer_configs ({}).calibration_config", layer_name));
  for (auto& entry : *config_->mutable_override_layer_configs()) {
    if (entry.layer_name() == layer_name) {
      *entry.mutable_calibration_config() = std::move(calibration);
      return;
    }
  }
  auto* entry = config_->add_override_layer_configs();
  entry->set_layer_name(layer_name);
  *entry->mutable_calibration_config() = std::move(calibration);
}

void QuantConfig::AddSkipLayer(const std::string& name) {
  if (!Contains(config_->skip_layers(), name)) config_->add_skip_layers(name);
}

QuantConfig ParseQuantConfig(const std::string& text, const std::string& origin) {
  proto::AMCTConfig config;
  TextFormat::ParseInfoTree tree;
  ParseProtoText(text, origin, &config, &tree);
  ConfigChecker(origin, config, &tree).Check();  // first with locations; the constructor's check then passes
  return QuantConfig(config);
}

QuantConfig LoadQuantConfig(const std::string& path) {
  return ParseQuantConfig(ReadTextFile(path, "quant config"), path);
}

}  // namespace ge::quant
