// Drives the TensorFlow import: reads the model (tf_reader.h), refuses one
// with ops ge cannot translate (all listed at once), orders the nodes by
// their data and control inputs, adds Placeholders as graph inputs and Consts
// as constants, translates the rest (tf_translation.h) and picks the outputs.
#include "ge/tf_importer.h"

#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/builder.h"
#include "ge/error.h"
#include "graph/tf/tf_reader.h"
#include "graph/tf/tf_tensor.h"
#include "graph/tf/tf_translation.h"

namespace ge {
namespace {

using tf_import::TfModel;
using tf_import::TfNodeContext;

// "node", "node:1" or "^node" (a control input): the node, the output index, whether it is a control edge.
struct InputRef {
  std::string node;
  int index = 0;
  bool control = false;
};

InputRef ParseInput(const std::string& text) {
  InputRef ref;
  std::string name = text;
  if (!name.empty() && name[0] == '^') {
    ref.control = true;
    name.erase(0, 1);
  }
  const size_t colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos && name.size() - colon <= 6) {
    ref.index = std::stoi(name.substr(colon + 1));
    name.resize(colon);
  }
  ref.node = name;
  return ref;
}

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : fmt::format("{}:{}", node, index);
}

bool IsSourceOrNoOp(const std::string& op) { return op == "Placeholder" || op == "Const" || op == "NoOp"; }

void RefuseUnsupported(const TfModel& model) {
  std::map<std::string, int> missing;
  const tf_import::TfTranslators& translators = tf_import::AllTfTranslators();
  for (const ge::tf::NodeDef& node : model.graph.node()) {
    if (!IsSourceOrNoOp(node.op()) && !translators.count(node.op())) ++missing[node.op()];
  }
  if (missing.empty()) return;
  std::vector<std::string> listed;
  for (const auto& [op, count] : missing) listed.push_back(fmt::format("{} ({})", op, count));
  throw Error(ErrorCode::kUnsupported, fmt::format("{}: {} op type{} not supported by ge's TensorFlow import: {}",
                                                   model.origin, missing.size(), missing.size() == 1 ? " is" : "s are",
                                                   fmt::join(listed, ", ")));
}

// The nodes in an order where every input comes first.
std::vector<const ge::tf::NodeDef*> Ordered(const TfModel& model,
                                            const std::unordered_map<std::string, const ge::tf::NodeDef*>& by_name) {
  std::unordered_map<const ge::tf::NodeDef*, int> waiting;
  std::unordered_map<std::string, std::vector<const ge::tf::NodeDef*>> readers;
  std::vector<const ge::tf::NodeDef*> ready;
  for (const ge::tf::NodeDef& node : model.graph.node()) {
    std::unordered_set<std::string> producers;
    for (const std::string& input : node.input()) {
      const InputRef ref = ParseInput(input);
      if (!by_name.count(ref.node)) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: node '{}' ({}) reads '{}', which no node of the graph "
                                                          "makes", model.origin, node.name(), node.op(), input));
      }
      if (producers.insert(ref.node).second) readers[ref.node].push_back(&node);
    }
    waiting[&node] = static_cast<int>(producers.size());
    if (producers.empty()) ready.push_back(&node);
  }
  std::vector<const ge::tf::NodeDef*> order;
  while (!ready.empty()) {
    const ge::tf::NodeDef* node = ready.back();
    ready.pop_back();
    order.push_back(node);
    for (const ge::tf::NodeDef* reader : readers[node->name()]) {
      if (--waiting[reader] == 0) ready.push_back(reader);
    }
  }
  if (order.size() != static_cast<size_t>(model.graph.node_size())) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: the graph has a cycle (TensorFlow 1 loops: NextIteration), which ge's import does "
                            "not translate yet", model.origin));
  }
  return order;
}

Value* AddPlaceholder(GraphBuilder& b, const ge::tf::NodeDef& node, const TfImportOptions& options,
                      const std::string& origin) {
  const auto dtype_attr = node.attr().find("dtype");
  const std::optional<DataType> dtype =
      dtype_attr != node.attr().end() ? tf_import::DtypeFromTf(dtype_attr->second.type()) : std::nullopt;
  if (!dtype) {
    throw Error(ErrorCode::kUnsupported, fmt::format("{}: placeholder '{}' has no dtype ge supports", origin, node.name()));
  }
  Shape shape = Shape::UnknownRank();
  if (const auto given = options.input_shapes.find(node.name()); given != options.input_shapes.end()) {
    shape = given->second;
  } else if (const auto shape_attr = node.attr().find("shape"); shape_attr != node.attr().end()) {
    if (std::optional<Shape> declared = tf_import::ShapeFromTf(shape_attr->second.shape())) shape = *declared;
  }
  return b.Input(node.name(), *dtype, shape);
}

Value* AddConst(GraphBuilder& b, const ge::tf::NodeDef& node, TfModel& model) {
  if (auto weight = model.weights.find(node.name()); weight != model.weights.end()) {
    return b.Constant(node.name(), std::move(weight->second));
  }
  const auto value = node.attr().find("value");
  if (value == node.attr().end() || !value->second.has_tensor()) {
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: constant '{}' has no value", model.origin, node.name()));
  }
  return b.Constant(node.name(),
                    tf_import::TensorFromTf(value->second.tensor(), fmt::format("{}: constant '{}'", model.origin,
                                                                                node.name())));
}

}  // namespace

std::unique_ptr<Graph> ImportTensorFlowFile(const std::string& path, const TfImportOptions& options) {
  TfModel model = tf_import::ReadTfModel(path);
  if (model.graph.library().function_size() > 0) {
    throw Error(ErrorCode::kUnsupported,
                fmt::format("{}: the graph has {} functions (TensorFlow 2 control flow), which ge's import does not "
                            "translate yet", path, model.graph.library().function_size()));
  }
  RefuseUnsupported(model);
  std::unordered_map<std::string, const ge::tf::NodeDef*> by_name;
  for (const ge::tf::NodeDef& node : model.graph.node()) {
    if (!by_name.emplace(node.name(), &node).second) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: two nodes are named '{}'", path, node.name()));
    }
  }
  for (const auto& [name, shape] : options.input_shapes) {
    const auto found = by_name.find(name);
    if (found == by_name.end() || found->second->op() != "Placeholder") {
      throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: input shape given for '{}', which is not a placeholder "
                                                           "of the graph", path, name));
    }
  }

  GraphBuilder b(std::filesystem::path(path).stem().string());
  std::unordered_map<std::string, std::vector<Value*>> made;  // node -> its outputs
  std::unordered_set<std::string> read;                       // nodes some data input reads
  for (const ge::tf::NodeDef* node : Ordered(model, by_name)) {
    if (node->op() == "Placeholder") {
      made[node->name()] = {AddPlaceholder(b, *node, options, path)};
      continue;
    }
    if (node->op() == "Const") {
      made[node->name()] = {AddConst(b, *node, model)};
      continue;
    }
    if (node->op() == "NoOp") continue;
    std::vector<Value*> inputs;
    for (const std::string& input : node->input()) {
      const InputRef ref = ParseInput(input);
      if (ref.control) continue;
      read.insert(ref.node);
      const std::vector<Value*>& outputs = made[ref.node];
      if (ref.index < 0 || static_cast<size_t>(ref.index) >= outputs.size()) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: node '{}' ({}) reads '{}', which does not exist", path,
                                                          node->name(), node->op(), input));
      }
      inputs.push_back(outputs[ref.index]);
    }
    TfNodeContext ctx(*node, b, std::move(inputs), path);
    made[node->name()] = tf_import::AllTfTranslators().find(node->op())->second(ctx);
  }

  std::vector<Value*> outputs;
  std::vector<std::string> names;
  if (!options.output_nodes.empty()) {
    for (const std::string& wanted : options.output_nodes) {
      const InputRef ref = ParseInput(wanted);
      const auto found = made.find(ref.node);
      if (ref.control || found == made.end() || static_cast<size_t>(ref.index) >= found->second.size()) {
        throw Error(ErrorCode::kInvalidArgument, fmt::format("{}: output '{}' is not a tensor of the graph", path, wanted));
      }
      outputs.push_back(found->second[ref.index]);
      names.push_back(TensorName(ref.node, ref.index));
    }
  } else {
    for (const ge::tf::NodeDef& node : model.graph.node()) {
      if (IsSourceOrNoOp(node.op()) || read.count(node.name())) continue;
      const std::vector<Value*>& values = made[node.name()];
      for (size_t i = 0; i < values.size(); ++i) {
        outputs.push_back(values[i]);
        names.push_back(TensorName(node.name(), static_cast<int>(i)));
      }
    }
  }
  if (outputs.empty()) throw Error(ErrorCode::kInvalidModel, fmt::format("{}: the graph computes nothing", path));
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i]->set_name(names[i]);
  b.Outputs(outputs);
  return b.Build();
}

}  // namespace ge
