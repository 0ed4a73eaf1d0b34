// Typed access to an ONNX node's attributes, with the ONNX defaults supplied by
// the caller. A present attribute of the wrong type is a kInvalidModel error.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace ge::onnx_import {

class OnnxAttributes {
 public:
  // `context` prefixes error messages, e.g. "model.onnx: node 'conv1' (Conv)".
  OnnxAttributes(const onnx::NodeProto& node, std::string context);

  bool Has(const std::string& name) const { return Find(name) != nullptr; }
  const onnx::AttributeProto* Find(const std::string& name) const;

  int64_t Int(const std::string& name, int64_t fallback) const;
  float Float(const std::string& name, float fallback) const;
  std::string String(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> Ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> Floats(const std::string& name, const std::vector<float>& fallback = {}) const;
  // A required graph attribute (If branches, Loop and Scan bodies).
  const onnx::GraphProto& Graph(const std::string& name) const;

 private:
  // The attribute when present; throws when it has another type.
  const onnx::AttributeProto* FindOfType(const std::string& name, onnx::AttributeProto::AttributeType type) const;

  const onnx::NodeProto& node_;
  std::string context_;
};

}  // namespace ge::onnx_import
