#include "report.h"

#include <algorithm>

#include <fmt/core.h>

namespace ge::cli {

std::string FormatBytes(size_t bytes) {
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string FormatMemorySummary(const MemorySummary& memory) {
  if (memory.dynamic) {
    return fmt::format("const {}, arena none: dynamic shapes, tensor buffers pooled across runs",
                       FormatBytes(memory.const_bytes));
  }
  return fmt::format("const {}, arena {} (no reuse {}, lower bound {}, placed by {})", FormatBytes(memory.const_bytes),
                     FormatBytes(memory.arena_bytes), FormatBytes(memory.no_reuse_bytes),
                     FormatBytes(memory.lower_bound_bytes),
                     memory.placement_strategy.empty() ? "an unrecorded strategy" : memory.placement_strategy);
}

void WriteMemorySummary(JsonWriter& json, const MemorySummary& memory) {
  json.BeginObject();
  json.Key("const_bytes").Int(static_cast<int64_t>(memory.const_bytes));
  json.Key("arena_bytes").Int(static_cast<int64_t>(memory.arena_bytes));
  json.Key("no_reuse_bytes").Int(static_cast<int64_t>(memory.no_reuse_bytes));
  json.Key("lower_bound_bytes").Int(static_cast<int64_t>(memory.lower_bound_bytes));
  json.Key("dynamic").Bool(memory.dynamic);
  json.Key("placement_strategy").String(memory.placement_strategy);
  json.EndObject();
}

void WriteShape(JsonWriter& json, const Shape& shape) {
  json.BeginArray();
  for (int64_t dim : shape.dims()) json.Int(dim);
  json.EndArray();
}

void WriteTensorInfos(JsonWriter& json, const std::vector<TensorInfo>& infos) {
  json.BeginArray();
  for (const TensorInfo& info : infos) {
    json.BeginObject();
    json.Key("name").String(info.name);
    json.Key("dtype").String(DataTypeName(info.dtype));
    json.Key("shape");
    WriteShape(json, info.shape);
    if (!info.dim_names.empty()) {
      json.Key("dim_names").BeginArray();
      for (const std::string& name : info.dim_names) json.String(name);
      json.EndArray();
    }
    json.EndObject();
  }
  json.EndArray();
}

void WriteImplModeReport(JsonWriter& json, const std::vector<ImplModeRecord>& records) {
  json.BeginArray();
  for (const ImplModeRecord& record : records) {
    json.BeginObject();
    json.Key("node").String(record.node);
    json.Key("op_type").String(record.op_type);
    json.Key("dtype").String(DataTypeName(record.dtype));
    json.Key("requested").String(record.requested);
    json.Key("applied").String(record.applied);
    json.Key("reason").String(record.reason);
    json.EndObject();
  }
  json.EndArray();
}

std::vector<std::vector<std::string>> ImplModeRows(const std::vector<ImplModeRecord>& records) {
  std::vector<std::vector<std::string>> rows = {{"node", "op type", "dtype", "requested", "applied", "reason"}};
  for (const ImplModeRecord& record : records) {
    rows.push_back({record.node, record.op_type, std::string(DataTypeName(record.dtype)),
                    record.requested.empty() ? "-" : record.requested, record.applied.empty() ? "-" : record.applied,
                    record.reason});
  }
  return rows;
}

std::string FormatTable(const std::vector<std::vector<std::string>>& rows, const std::string& indent) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    widths.resize(std::max(widths.size(), row.size()), 0);
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], row[i].size());
  }
  std::string text;
  for (const auto& row : rows) {
    std::string line = indent;
    for (size_t i = 0; i < row.size(); ++i) {
      // The last column is not padded, so lines carry no trailing blanks.
      line += i + 1 == row.size() ? row[i] : fmt::format("{:<{}}  ", row[i], widths[i]);
    }
    text += line + "\n";
  }
  return text;
}

}  // namespace ge::cli
