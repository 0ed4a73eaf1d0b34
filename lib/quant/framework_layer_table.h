// The seed's tables of quantizable layers, one per framework (ONNX,
// TensorFlow, Caffe): each row names the framework's op, the Ascend IR op(s)
// it maps to, its constraint as the documentation states it, and the check
// of the parts of that constraint that concern the framework's op itself
// (TensorFlow MatMul's transpose_b, Caffe Eltwise's operation). What every
// framework shares (the weight is a constant, activations are float, the
// engine's own limits) is checked by the planner (layer_support.cc).
#pragma once

#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::quant {

// The rule the node breaks, or empty when it keeps the row's constraint.
using FrameworkRuleCheck = std::string (*)(const Node& node);

// One row of the full-quantization support table.
struct LayerSupportRow {
  std::string framework;     // "ONNX", "TensorFlow", "Caffe"
  std::string framework_op;  // the framework's op name ("Conv", "MatMul", "Pooling", ...)
  std::string ascend_ops;    // the Ascend IR op(s) it maps to ("Conv2D, Conv3D")
  std::string constraint;    // "-" when there is none
  FrameworkRuleCheck check = nullptr;
};

const std::vector<LayerSupportRow>& LayerSupportTable();
// IPV350's own table, which replaces the TensorFlow and ONNX tables there.
const std::vector<LayerSupportRow>& Ipv350SupportTable();

// The framework layer a node of an imported graph belongs to.
struct LayerSource {
  std::string framework;  // "ONNX" for unmarked nodes (graph/framework_source.h)
  std::string op;         // as the framework spells it; for ONNX, derived from the ge op
  // The row that governs the layer; nullptr when the framework's table has no
  // such op (a TensorFlow BiasAdd or AddN, an ONNX node the table lacks).
  const LayerSupportRow* row = nullptr;
};

// `ipv350`: IPV350's table governs the TensorFlow and ONNX layers.
LayerSource SourceOfLayer(const Node& node, bool ipv350 = false);

// The row governing `op` of `framework` (TensorFlow's fused forms and AddV2
// find their base op's row); nullptr when the table has none.
const LayerSupportRow* FindLayerRow(const std::string& framework, const std::string& op, bool ipv350 = false);

// A layer that is no candidate by its ge op but is listed, skipped, so that
// the report names the rule: a Caffe Eltwise of operation PROD or MAX.
bool ListedForItsFramework(const Node& node, const LayerSource& source);

// "TensorFlow's table: MatMul, Conv2D, ...": for the reason of a layer whose op no row has.
std::string FrameworkOpsList(const std::string& framework, bool ipv350 = false);

}  // namespace ge::quant
