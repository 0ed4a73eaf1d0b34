#include "graph/onnx/onnx_attribute_ranges.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include "ge/error.h"
#include "graph/onnx/onnx_graph_translation.h"
#include "graph/ops/window_infer.h"

namespace ge::onnx_import {
namespace {

// ge's window schemas bound the same attributes (ONNX's arithmetic, e.g.
// dilation * (kernel - 1), has no overflow checks either).
using infer::kMaxWindowValue;

struct AttributeRange {
  std::string_view attribute;
  int64_t min;
  int64_t max;
};

// Ops sharing attributes with the same valid ranges.
struct OpFamily {
  std::vector<std::string_view> ops;
  std::vector<AttributeRange> ranges;
};

const std::vector<OpFamily>& OpFamilies() {
  static const std::vector<OpFamily> families = {
      {{"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "MaxUnpool"},
       {{"kernel_shape", 1, kMaxWindowValue},
        {"strides", 1, kMaxWindowValue},
        {"dilations", 1, kMaxWindowValue},
        {"pads", 0, kMaxWindowValue},
        {"output_padding", 0, kMaxWindowValue},
        {"output_shape", 1, kMaxWindowValue},
        {"group", 1, kMaxWindowValue}}},
      // ONNX infers their output dims by dividing by blocksize.
      {{"SpaceToDepth", "DepthToSpace"}, {{"blocksize", 1, kMaxWindowValue}}},
      // ... and Split's (opset 18) by num_outputs.
      {{"Split"}, {{"num_outputs", 1, std::numeric_limits<int32_t>::max()}}},
      {{"LRN"}, {{"size", 1, kMaxWindowValue}}},
      {{"RNN", "GRU", "LSTM"}, {{"hidden_size", 1, std::numeric_limits<int32_t>::max()}}},
  };
  return families;
}

const OpFamily* FamilyOf(const std::string& op_type) {
  for (const OpFamily& family : OpFamilies()) {
    if (std::find(family.ops.begin(), family.ops.end(), op_type) != family.ops.end()) return &family;
  }
  return nullptr;
}

void CheckNodeAttributes(const onnx::NodeProto& node, int index, const std::string& origin) {
  const OpFamily* family = FamilyOf(node.op_type());
  if (family == nullptr) return;
  for (const onnx::AttributeProto& attr : node.attribute()) {
    for (const AttributeRange& range : family->ranges) {
      if (attr.name() != range.attribute) continue;
      std::vector<int64_t> values(attr.ints().begin(), attr.ints().end());
      if (attr.has_i()) values.push_back(attr.i());
      for (int64_t value : values) {
        if (value >= range.min && value <= range.max) continue;
        throw Error(ErrorCode::kInvalidModel,
                    fmt::format("{}: node '{}' ({}): attribute '{}' has value {}; valid range [{}, {}]", origin,
                                NodeName(node, index), node.op_type(), attr.name(), value, range.min, range.max));
      }
    }
  }
}

void CheckDims(const onnx::TypeProto& type, const std::string& what, const std::string& origin) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return;
  for (const onnx::TensorShapeProto::Dimension& dim : type.tensor_type().shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() < 0) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {} has dim {}; dims must be >= 0 (or symbolic)", origin,
                                                        what, dim.dim_value()));
    }
  }
}

void CheckValueInfos(const onnx::GraphProto& graph, const std::string& origin) {
  for (const auto& input : graph.input()) CheckDims(input.type(), fmt::format("graph input '{}'", input.name()), origin);
  for (const auto& output : graph.output()) {
    CheckDims(output.type(), fmt::format("graph output '{}'", output.name()), origin);
  }
  for (const auto& info : graph.value_info()) CheckDims(info.type(), fmt::format("value '{}'", info.name()), origin);
  for (const auto& tensor : graph.initializer()) {
    for (int64_t dim : tensor.dims()) {
      if (dim < 0) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: initializer '{}' has dim {}; dims must be >= 0", origin,
                                                          tensor.name(), dim));
      }
    }
  }
}

}  // namespace

void CheckAttributeRanges(const onnx::GraphProto& graph, const std::string& origin) {
  CheckValueInfos(graph, origin);
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    CheckNodeAttributes(node, i, origin);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CheckAttributeRanges(attr.g(), origin);
      for (const onnx::GraphProto& subgraph : attr.graphs()) CheckAttributeRanges(subgraph, origin);
    }
  }
}

}  // namespace ge::onnx_import
