#include "graph/onnx/onnx_attributes.h"

#include <fmt/core.h>

#include "ge/error.h"

namespace ge::onnx_import {

OnnxAttributes::OnnxAttributes(const onnx::NodeProto& node, std::string context)
    : node_(node), context_(std::move(context)) {}

const onnx::AttributeProto* OnnxAttributes::Find(const std::string& name) const {
  for (const auto& attr : node_.attribute()) {
    if (attr.name() == name) return &attr;
  }
  return nullptr;
}

const onnx::AttributeProto* OnnxAttributes::FindOfType(const std::string& name,
                                                       onnx::AttributeProto::AttributeType type) const {
  const onnx::AttributeProto* attr = Find(name);
  if (attr && attr->type() != type) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: attribute '{}' has type {}, expected {}", context_, name,
                            onnx::AttributeProto::AttributeType_Name(attr->type()),
                            onnx::AttributeProto::AttributeType_Name(type)));
  }
  return attr;
}

const onnx::GraphProto& OnnxAttributes::Graph(const std::string& name) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::GRAPH);
  if (!attr) throw Error(ErrorCode::kInvalidModel, fmt::format("{}: required attribute '{}' is missing", context_, name));
  return attr->g();
}

int64_t OnnxAttributes::Int(const std::string& name, int64_t fallback) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::INT);
  return attr ? attr->i() : fallback;
}

float OnnxAttributes::Float(const std::string& name, float fallback) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::FLOAT);
  return attr ? attr->f() : fallback;
}

std::string OnnxAttributes::String(const std::string& name, const std::string& fallback) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::STRING);
  return attr ? attr->s() : fallback;
}

std::vector<int64_t> OnnxAttributes::Ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::INTS);
  return attr ? std::vector<int64_t>(attr->ints().begin(), attr->ints().end()) : fallback;
}

std::vector<float> OnnxAttributes::Floats(const std::string& name, const std::vector<float>& fallback) const {
  const auto* attr = FindOfType(name, onnx::AttributeProto::FLOATS);
  return attr ? std::vector<float>(attr->floats().begin(), attr->floats().end()) : fallback;
}

}  // namespace ge::onnx_import
