#include "quant/quant_record.h"

#include <unistd.h>

#include <atomic>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/core.h>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "quant/proto/quant_record.pb.h"
#include "quant/proto_text.h"

namespace ge::quant {
namespace {

using google::protobuf::TextFormat;

std::optional<QuantDType> ParseDType(const std::string& name) {
  if (name == "INT8") return QuantDType::kInt8;
  if (name == "INT16") return QuantDType::kInt16;
  return std::nullopt;
}

// Converts and checks entry `index` of a parsed record; errors point at the offending field.
class EntryReader {
 public:
  EntryReader(const std::string& origin, const proto::ScaleOffsetRecord& parsed,
              const TextFormat::ParseInfoTree& tree, int index)
      : origin_(origin), parsed_(parsed), tree_(tree), index_(index), layer_(parsed.record(index).key()) {}

  LayerRecord Read() const {
    const proto::SingleLayerRecord& r = parsed_.record(index_).value();
    if (layer_.empty()) Fail("key", "", "the layer name (key) is missing");
    LayerRecord out;
    out.skip_fusion = r.skip_fusion();
    out.smooth_scale = PositiveScales(r.smooth_scale(), "smooth_scale");
    out.equalization_scale = PositiveScales(r.equalization_scale(), "equalization_scale");
    for (float shift : r.bias_correction()) {
      if (!std::isfinite(shift)) Fail("value", "bias_correction", fmt::format("{} is not a finite shift", shift));
      out.bias_correction.push_back(shift);
    }

    QuantDType dst_type = QuantDType::kInt8;
    if (r.has_dst_type() || r.has_act_type()) {
      const std::string& name = r.has_act_type() ? r.act_type() : r.dst_type();
      const char* field = r.has_act_type() ? "act_type" : "dst_type";
      const auto parsed = ParseDType(name);
      if (!parsed) Fail("value", field, fmt::format("\"{}\" is not one of \"INT8\", \"INT16\"", name));
      if (r.has_act_type() && r.has_dst_type() && r.dst_type() != r.act_type()) {
        Fail("value", "dst_type", fmt::format("\"{}\" disagrees with act_type \"{}\"", r.dst_type(), r.act_type()));
      }
      dst_type = *parsed;
    }
    if (r.has_scale_d() || r.has_offset_d()) {
      out.activation = Activation(r.has_scale_d(), r.scale_d(), r.offset_d(), dst_type, "scale_d", "offset_d");
    }
    if (r.has_scale_d2() || r.has_offset_d2()) {
      out.second_activation = Activation(r.has_scale_d2(), r.scale_d2(), r.offset_d2(), dst_type, "scale_d2",
                                         "offset_d2");
    }
    if (r.scale_w_size() > 0 || r.offset_w_size() > 0 || r.has_wts_type()) out.weights = Weights(r);
    return out;
  }

 private:
  template <typename Repeated>
  std::vector<float> PositiveScales(const Repeated& scales, const char* field) const {
    std::vector<float> out;
    for (float scale : scales) {
      if (!(scale > 0) || !std::isfinite(scale)) Fail("value", field, fmt::format("{} is not a positive scale", scale));
      out.push_back(scale);
    }
    return out;
  }

  ActivationQuantParams Activation(bool has_scale, float scale, int32_t offset, QuantDType dst_type,
                                   const char* scale_field, const char* offset_field) const {
    if (!has_scale) Fail("value", offset_field, fmt::format("is given without {}", scale_field));
    CheckScale(scale, scale_field, -1);
    const int32_t limit = dst_type == QuantDType::kInt16 ? 32768 : 128;
    if (offset < -limit || offset >= limit) {
      Fail("value", offset_field,
           fmt::format("{} is outside the {} range [{}, {}]", offset, QuantDTypeName(dst_type), -limit, limit - 1));
    }
    return {scale, offset, dst_type};
  }

  WeightQuantParams Weights(const proto::SingleLayerRecord& r) const {
    WeightQuantParams w;
    if (r.has_wts_type()) {
      const std::string& type = r.wts_type();
      if (type == "INT8" || type == "INT7" || type == "INT6") {
        w.quant_bits = type[3] - '0';
      } else {
        Fail("value", "wts_type", fmt::format("\"{}\" is not one of \"INT8\", \"INT7\", \"INT6\"", type));
      }
    }
    if (r.scale_w_size() == 0) Fail("value", "wts_type", "weights need scale_w");
    if (r.scale_w_size() != r.offset_w_size()) {
      Fail("value", "offset_w",
           fmt::format("{} values for {} scale_w values; they must match", r.offset_w_size(), r.scale_w_size()));
    }
    const int32_t limit = int32_t{1} << (w.quant_bits - 1);
    for (int i = 0; i < r.scale_w_size(); ++i) {
      CheckScale(r.scale_w(i), "scale_w", i);
      if (r.offset_w(i) < -limit || r.offset_w(i) >= limit) {
        Fail("value", "offset_w", fmt::format("offset_w[{}] = {} is outside the INT{} range [{}, {}]", i,
                                              r.offset_w(i), w.quant_bits, -limit, limit - 1), i);
      }
    }
    w.scale.assign(r.scale_w().begin(), r.scale_w().end());
    w.offset.assign(r.offset_w().begin(), r.offset_w().end());
    return w;
  }

  // The deploy rewrite quantizes with 1 / scale (AMCT's ProcessScale refuses a scale whose inverse overflows).
  void CheckScale(float scale, const char* field, int index) const {
    if (!(scale > 0.0f) || !std::isfinite(scale) || !std::isfinite(1.0f / scale)) {
      const std::string name = index < 0 ? field : fmt::format("{}[{}]", field, index);
      Fail("value", field,
           fmt::format("{} = {} must be positive and finite, and at least {} so that 1 / scale is finite", name, scale,
                       1.0f / std::numeric_limits<float>::max()),
           index);
    }
  }

  [[noreturn]] void Fail(const char* step, const std::string& field, const std::string& problem,
                         int field_index = -1) const {
    std::vector<FieldStep> steps = {{"record", index_}, {step}};
    if (!field.empty()) steps.push_back({field, field_index});
    const std::string where = LocateField(origin_, parsed_, tree_, steps);
    // The layer name and type strings come from the file: escaped so that the message stays one line.
    throw Error(ErrorCode::kInvalidArgument,
                EscapeForMessage(fmt::format("{}: record[{}] ({}){}: {}", where, index_, layer_,
                                             field.empty() ? "" : "." + field, problem)));
  }

  const std::string& origin_;
  const proto::ScaleOffsetRecord& parsed_;
  const TextFormat::ParseInfoTree& tree_;
  int index_;
  const std::string& layer_;
};

std::string DTypeField(const ActivationQuantParams& params) { return QuantDTypeName(params.dst_type); }

}  // namespace

QuantRecord ParseQuantRecord(const std::string& text, const std::string& origin) {
  proto::ScaleOffsetRecord parsed;
  TextFormat::ParseInfoTree tree;
  ParseProtoText(text, origin, &parsed, &tree);
  QuantRecord record;
  for (int i = 0; i < parsed.record_size(); ++i) {
    const auto& entry = parsed.record(i);
    LayerRecord layer = EntryReader(origin, parsed, tree, i).Read();
    if (!record.emplace(entry.key(), std::move(layer)).second) {
      throw Error(ErrorCode::kInvalidArgument,
                  EscapeForMessage(fmt::format("{}: record[{}] ({}): the layer appears twice",
                                               LocateField(origin, parsed, tree, {{"record", i}}), i, entry.key())));
    }
  }
  return record;
}

QuantRecord ReadQuantRecord(const std::string& path) {
  return ParseQuantRecord(ReadTextFile(path, "quant record"), path);
}

std::string QuantRecordToText(const QuantRecord& record) {
  proto::ScaleOffsetRecord out;
  for (const auto& [name, layer] : record) {
    auto* entry = out.add_record();
    entry->set_key(name);
    auto* value = entry->mutable_value();
    if (layer.activation) {
      value->set_scale_d(layer.activation->scale);
      value->set_offset_d(layer.activation->offset);
      value->set_dst_type(DTypeField(*layer.activation));
      value->set_act_type(DTypeField(*layer.activation));
    }
    if (layer.second_activation) {
      value->set_scale_d2(layer.second_activation->scale);
      value->set_offset_d2(layer.second_activation->offset);
    }
    if (layer.weights) {
      for (float scale : layer.weights->scale) value->add_scale_w(scale);
      for (int32_t offset : layer.weights->offset) value->add_offset_w(offset);
      value->set_wts_type(fmt::format("INT{}", layer.weights->quant_bits));
    }
    if (layer.skip_fusion) value->set_skip_fusion(true);
    for (float shift : layer.bias_correction) value->add_bias_correction(shift);
    for (float scale : layer.smooth_scale) value->add_smooth_scale(scale);
    for (float scale : layer.equalization_scale) value->add_equalization_scale(scale);
  }
  std::string text;
  TextFormat::Printer printer;
  // Scales must read back bit for bit.
  printer.SetUseShortRepeatedPrimitives(false);
  printer.PrintToString(out, &text);
  return text;
}

void WriteQuantRecord(const QuantRecord& record, const std::string& path) {
  const std::string text = QuantRecordToText(record);
  const std::filesystem::path target(path);
  // Unique per process and call, so concurrent writers never share a temporary file.
  static std::atomic<uint64_t> writes{0};
  const std::filesystem::path temp =
      target.parent_path() /
      fmt::format(".{}.{}.{}.tmp", target.filename().string(), static_cast<long>(getpid()), writes++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      throw Error(ErrorCode::kIoError, fmt::format("cannot write quant record file {} (via {})", path, temp.string()));
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    throw Error(ErrorCode::kIoError, fmt::format("cannot replace quant record file {}: {}", path, ec.message()));
  }
}

}  // namespace ge::quant
