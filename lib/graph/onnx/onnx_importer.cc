// The ONNX import pipeline: parse, refuse what cannot be translated (all
// unsupported ops at once), load external data, check (the ONNX checker, then
// attribute ranges and dims), infer shapes, translate
// node by node through the op table.
#include "ge/onnx_importer.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <unordered_set>

#include "ge/error.h"
#include "graph/dim_names.h"
#include "graph/onnx/onnx_attribute_ranges.h"
#include "graph/onnx/onnx_external_data.h"
#include "graph/onnx/onnx_graph_translation.h"
#include "graph/onnx/onnx_op_registry.h"
#include "graph/onnx/onnx_reader.h"
#include "graph/onnx/onnx_tensor.h"
#include "graph/onnx/onnx_translation_context.h"

namespace ge {
namespace {

using namespace onnx_import;

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

int DefaultDomainOpset(const onnx::ModelProto& model, const std::string& origin) {
  std::optional<int64_t> version;
  for (const auto& opset : model.opset_import()) {
    if (IsDefaultDomain(opset.domain())) version = opset.version();
  }
  if (!version) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: the model imports no opset of the default ONNX domain", origin));
  }
  if (*version < kMinOnnxOpset || *version > kMaxOnnxOpset) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: opset {} of the default ONNX domain is not supported; supported opsets: {} to {} "
                            "(convert the model, e.g. with onnx.version_converter)",
                            origin, *version, kMinOnnxOpset, kMaxOnnxOpset));
  }
  return static_cast<int>(*version);
}

// Opsets at which the table does translate `op_type`, for the error message.
std::string SupportedOpsetsHint(const std::string& op_type) {
  std::vector<std::string> ranges;
  for (const OnnxOpEntry& entry : OnnxOpTable()) {
    if (entry.onnx_op == op_type) ranges.push_back(fmt::format("{}-{}", entry.first_opset, entry.last_opset));
  }
  return ranges.empty() ? "" : fmt::format("; translated at opsets {}", fmt::join(ranges, ", "));
}

using UnsupportedOps = std::vector<std::pair<std::string, std::vector<std::string>>>;

// Adds the nodes of `graph` and of its subgraphs (at any depth) that the table
// cannot translate (ops of other domains included) to `unsupported`.
void CollectUnsupportedOps(const onnx::GraphProto& graph, int opset, UnsupportedOps& unsupported, size_t& count) {
  for (int i = 0; i < graph.node_size(); ++i) {
    const onnx::NodeProto& node = graph.node(i);
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) CollectUnsupportedOps(attr.g(), opset, unsupported, count);
      for (const onnx::GraphProto& subgraph : attr.graphs()) CollectUnsupportedOps(subgraph, opset, unsupported, count);
    }
    const bool default_domain = IsDefaultDomain(node.domain());
    if (default_domain && FindOnnxOp(node.op_type(), opset)) continue;
    const std::string op = default_domain ? node.op_type() : fmt::format("{}:{}", node.domain(), node.op_type());
    auto it = std::find_if(unsupported.begin(), unsupported.end(), [&](const auto& item) { return item.first == op; });
    if (it == unsupported.end()) it = unsupported.insert(unsupported.end(), {op, {}});
    it->second.push_back(NodeName(node, i));
    ++count;
  }
}

// Throws one kUnsupported error listing every op the table cannot translate
// with the nodes using it, in model order.
void RejectUnsupportedOps(const onnx::ModelProto& model, int opset, const std::string& origin) {
  UnsupportedOps unsupported;
  size_t count = 0;
  CollectUnsupportedOps(model.graph(), opset, unsupported, count);
  if (unsupported.empty()) return;
  std::vector<std::string> items;
  for (const auto& [op, nodes] : unsupported) {
    items.push_back(fmt::format("{} (nodes: {}{})", op, fmt::join(nodes, ", "), SupportedOpsetsHint(op)));
  }
  throw Error(ErrorCode::kUnsupported,
              fmt::format("{}: {} {} unsupported ops at opset {}: {}", origin, count, count == 1 ? "node uses" : "nodes use",
                          opset, fmt::join(items, ", ")));
}

void RejectUnsupportedGraphFeatures(const onnx::GraphProto& graph, const std::string& origin) {
  if (graph.sparse_initializer_size() > 0) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: sparse initializers (e.g. '{}') are not supported", origin,
                            graph.sparse_initializer(0).values().name()));
  }
}

std::unique_ptr<Graph> Translate(onnx::ModelProto& model, int opset, const std::string& origin) {
  onnx::GraphProto& onnx_graph = *model.mutable_graph();
  auto graph = std::make_unique<Graph>(onnx_graph.name().empty() ? "graph" : onnx_graph.name());
  ImportState state(*graph, origin, opset);
  DeclareInferredTypes(state, onnx_graph);
  std::unordered_set<std::string> initializers = TakeInitializers(state, onnx_graph);
  for (const auto& input : onnx_graph.input()) {
    if (initializers.count(input.name())) continue;  // older exporters also list the weights as inputs
    std::optional<OnnxValueType> type = ValueTypeFromOnnx(input.type());
    if (!type) {
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("{}: graph input '{}' is not a tensor of a supported dtype", origin, input.name()));
    }
    Value* value = graph->AddInput(input.name(), type->dtype, std::move(type->shape));
    if (!type->dim_names.empty()) value->producer()->attrs().Set(kDimNamesAttr, type->dim_names);
    state.Define(input.name(), value);
  }
  TranslateNodesAndOutputs(state, onnx_graph);
  return graph;
}

// Takes the parsed model: the initializers' raw bytes move into the graph's constants.
std::unique_ptr<Graph> Import(onnx::ModelProto model, const std::filesystem::path& model_dir,
                              const std::string& origin) {
  const int opset = DefaultDomainOpset(model, origin);
  RejectUnsupportedOps(model, opset, origin);
  RejectUnsupportedGraphFeatures(model.graph(), origin);
  LoadExternalData(model, model_dir, origin);
  CheckOnnxModel(model, origin);
  CheckAttributeRanges(model.graph(), origin);  // ONNX shape inference trusts them
  InferOnnxShapes(model);
  return Translate(model, opset, origin);
}

}  // namespace

std::unique_ptr<Graph> ImportOnnxFile(const std::string& path) {
  std::filesystem::path model_dir = std::filesystem::path(path).parent_path();
  if (model_dir.empty()) model_dir = ".";
  return Import(ParseOnnxFile(path), model_dir, path);
}

std::unique_ptr<Graph> ImportOnnxBuffer(const void* data, size_t size, const std::string& base_dir,
                                        const std::string& origin) {
  if (data == nullptr && size > 0) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: the model buffer is null", origin));
  }
  return Import(ParseOnnxModel(data, size, origin), base_dir, origin);
}

}  // namespace ge
