// Where an imported node came from. The TensorFlow and Caffe importers mark
// every node they add with the framework and the op (layer) type that
// produced it, plus the framework parameters a rule needs that the ge node no
// longer shows (a Caffe Pooling's global_pooling, an InnerProduct's axis).
// Quantization reads the marks to apply that framework's table of
// quantizable layers (lib/quant/framework_layer_table.cc). ONNX nodes carry
// no mark: they map one to one onto ge ops, whose names tell the ONNX op.
// The leading underscore marks the attributes ge-internal.
#pragma once

#include <optional>
#include <string>

#include "ge/graph.h"

namespace ge {

inline constexpr const char* kFrameworkAttr = "_framework";        // "TensorFlow", "Caffe"
inline constexpr const char* kFrameworkOpAttr = "_framework_op";   // "MatMul", "Pooling", ...
inline constexpr const char* kFrameworkParamPrefix = "_framework_param_";

struct FrameworkSource {
  std::string framework;
  std::string op;
};

inline void MarkFrameworkSource(Node& node, const std::string& framework, const std::string& op) {
  node.attrs().Set(kFrameworkAttr, framework);
  node.attrs().Set(kFrameworkOpAttr, op);
}

inline std::optional<FrameworkSource> FrameworkSourceOf(const Node& node) {
  if (!node.attrs().Has(kFrameworkAttr) || !node.attrs().Has(kFrameworkOpAttr)) return std::nullopt;
  return FrameworkSource{node.attrs().GetString(kFrameworkAttr), node.attrs().GetString(kFrameworkOpAttr)};
}

// A framework parameter of the node's layer, by the framework's name for it.
inline void SetFrameworkParam(Node& node, const std::string& name, AttrValue value) {
  node.attrs().Set(kFrameworkParamPrefix + name, std::move(value));
}

inline const AttrValue* FindFrameworkParam(const Node& node, const std::string& name) {
  return node.attrs().Find(kFrameworkParamPrefix + name);
}

}  // namespace ge
