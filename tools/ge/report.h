// Formatting shared by the commands: tensor descriptions, byte counts and the
// memory plan summary, in human and JSON form.
#pragma once

#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/impl_mode_report.h"
#include "json_writer.h"

namespace ge::cli {

// "1.5 KiB", "3.2 MiB": binary units, one decimal.
std::string FormatBytes(size_t bytes);

// "const 12.0 KiB, arena 40.0 KiB (no reuse 96.0 KiB, lower bound 40.0 KiB)"
std::string FormatMemorySummary(const MemorySummary& memory);
void WriteMemorySummary(JsonWriter& json, const MemorySummary& memory);

// [1,3,224,224] as a JSON array; unknown dims as -1.
void WriteShape(JsonWriter& json, const Shape& shape);
// {"name", "dtype", "shape"} for each tensor.
void WriteTensorInfos(JsonWriter& json, const std::vector<TensorInfo>& infos);

// The per-node implementation modes (ge::ImplModeReport): a JSON array of
// {"node", "op_type", "dtype", "requested", "applied", "reason"}, or table rows
// with a header.
void WriteImplModeReport(JsonWriter& json, const std::vector<ImplModeRecord>& records);
std::vector<std::vector<std::string>> ImplModeRows(const std::vector<ImplModeRecord>& records);

// Rows of equal-width columns separated by two spaces; the first row is the header.
std::string FormatTable(const std::vector<std::vector<std::string>>& rows, const std::string& indent = "  ");

}  // namespace ge::cli
