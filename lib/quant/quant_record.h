// The record file: per-layer quantization factors in protobuf text format
// (schema quant/proto/quant_record.proto). Calibration writes it, the deploy
// rewrite reads it.
#pragma once

#include <map>
#include <string>

#include "quant/quant_types.h"

namespace ge::quant {

// Layer (node) name -> its factors.
using QuantRecord = std::map<std::string, LayerRecord>;

// Parses and validates record text; errors start with `origin`, line and column.
QuantRecord ParseQuantRecord(const std::string& text, const std::string& origin);
QuantRecord ReadQuantRecord(const std::string& path);

std::string QuantRecordToText(const QuantRecord& record);
// Writes a temporary file next to `path`, then renames it over `path`: readers
// see the old file or the whole new one, never a part.
void WriteQuantRecord(const QuantRecord& record, const std::string& path);

}  // namespace ge::quant
