// The one table of ONNX ops the importer translates: op type, the opsets an
// entry covers, the ge op it produces, its limitations and the translator.
// docs/onnx-import.md describes it; docs about supported ops can be generated
// by walking OnnxOpTable().
#pragma once

#include <span>
#include <string_view>

namespace ge::onnx_import {

class NodeTranslation;

// Opsets of the default ONNX domain ("" or "ai.onnx") the importer accepts.
inline constexpr int kMinOnnxOpset = 1;
inline constexpr int kMaxOnnxOpset = 17;

using TranslateFn = void (*)(NodeTranslation& node);

struct OnnxOpEntry {
  std::string_view onnx_op;
  int first_opset;   // inclusive
  int last_opset;    // inclusive
  // The ge op type of the node that takes the ONNX node's name; translators
  // create it with NodeTranslation::AddMainNode.
  std::string_view ge_op;
  // Helper nodes some translations add and the limitations, for the docs.
  std::string_view notes;
  TranslateFn translate;
};

// Every entry, ordered by ONNX op type and then by opset.
std::span<const OnnxOpEntry> OnnxOpTable();

// The entry for `onnx_op` at model opset `opset`, or nullptr.
const OnnxOpEntry* FindOnnxOp(std::string_view onnx_op, int opset);

}  // namespace ge::onnx_import
