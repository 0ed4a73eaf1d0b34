// Drives the TensorFlow import: reads the model (tf_reader.h), refuses one
// with ops ge cannot translate (all listed at once), orders the nodes by
// their data and control inputs, adds Placeholders as graph inputs and Consts
// as constants, translates the rest (tf_translation.h; each while loop as one
// ge Loop, tf_while_loop.h) and picks the outputs.
#include "ge/tf_importer.h"

#include <deque>
#include <filesystem>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/builder.h"
#include "ge/error.h"
#include "graph/tf/tf_input_ref.h"
#include "graph/tf/tf_reader.h"
#include "graph/tf/tf_tensor.h"
#include "graph/tf/tf_translation.h"
#include "graph/tf/tf_while_loop.h"

namespace ge {
namespace {

using tf_import::InputRef;
using tf_import::ParseInput;
using tf_import::TfModel;
using tf_import::TfNodeContext;

std::string TensorName(const std::string& node, int index) {
  return index == 0 ? node : fmt::format("{}:{}", node, index);
}

bool IsSourceOrNoOp(const std::string& op) { return op == "Placeholder" || op == "Const" || op == "NoOp"; }

// The nodes of TensorFlow 1 while loops, which tf_while_loop.cc turns into ge Loops.
bool IsLoopStructure(const std::string& op) {
  return op == "Enter" || op == "Merge" || op == "Switch" || op == "NextIteration" || op == "Exit" || op == "LoopCond";
}

// The nodes that stand in the outer graph for a while loop (its Loop) and
// for each of its Exits (an output of that Loop).
constexpr const char* kWhileLoopOp = "_GeWhileLoop";
constexpr const char* kWhileExitOp = "_GeWhileExit";

void RefuseUnsupported(const TfModel& model) {
  std::map<std::string, int> missing;
  const tf_import::TfTranslators& translators = tf_import::AllTfTranslators();
  for (const ge::tf::NodeDef& node : model.graph.node()) {
    if (!IsSourceOrNoOp(node.op()) && !IsLoopStructure(node.op()) && !translators.count(node.op())) {
      ++missing[node.op()];
    }
  }
  if (missing.empty()) return;
  std::vector<std::string> listed;
  for (const auto& [op, count] : missing) listed.push_back(fmt::format("{} ({})", op, count));
  throw Error(ErrorCode::kUnsupported, fmt::format("{}: {} op type{} not supported by ge's TensorFlow import: {}",
                                                   model.origin, missing.size(), missing.size() == 1 ? " is" : "s are",
                                                   fmt::join(listed, ", ")));
}

// `nodes` in an order where every input comes first.
std::vector<const ge::tf::NodeDef*> Ordered(const std::vector<const ge::tf::NodeDef*>& nodes,
                                            const std::unordered_map<std::string, const ge::tf::NodeDef*>& by_name,
                                            const std::string& origin) {
  std::unordered_map<const ge::tf::NodeDef*, int> waiting;
  std::unordered_map<std::string, std::vector<const ge::tf::NodeDef*>> readers;
  std::vector<const ge::tf::NodeDef*> ready;
  for (const ge::tf::NodeDef* node : nodes) {
    std::unordered_set<std::string> producers;
    for (const std::string& input : node->input()) {
      const InputRef ref = ParseInput(input);
      if (!by_name.count(ref.node)) {
        throw Error(ErrorCode::kInvalidModel, fmt::format("{}: node '{}' ({}) reads '{}', which no node of the graph "
                                                          "makes", origin, node->name(), node->op(), input));
      }
      if (producers.insert(ref.node).second) readers[ref.node].push_back(node);
    }
    waiting[node] = static_cast<int>(producers.size());
    if (producers.empty()) ready.push_back(node);
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
  if (order.size() != nodes.size()) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: the graph has a cycle outside the pattern of a while loop", origin));
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

Value* AddConst(GraphBuilder& b, const ge::tf::NodeDef& node, const TfModel& model) {
  if (auto weight = model.weights.find(node.name()); weight != model.weights.end()) {
    return b.Constant(node.name(), weight->second);  // shallow: a loop body may need the constant too
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

  // Each while loop stands in the outer graph as one node, read through its Exits.
  const std::vector<tf_import::WhileFrame> frames = tf_import::FindWhileFrames(model.graph, by_name, path);
  std::deque<ge::tf::NodeDef> stand_ins;
  std::unordered_map<std::string, const tf_import::WhileFrame*> loops;  // stand-in name -> frame
  std::unordered_set<std::string> in_loops;
  for (const tf_import::WhileFrame& frame : frames) {
    in_loops.insert(frame.members.begin(), frame.members.end());
    ge::tf::NodeDef& loop = stand_ins.emplace_back();
    loop.set_name(frame.name + "#loop");
    if (by_name.count(loop.name())) {
      throw Error(ErrorCode::kInvalidModel, fmt::format("{}: a node is named '{}', the name ge gives while loop '{}'",
                                                        path, loop.name(), frame.name));
    }
    loop.set_op(kWhileLoopOp);
    for (const tf_import::LoopVariable& v : frame.variables) loop.add_input(v.enter->input(0));
    for (const ge::tf::NodeDef* invariant : frame.invariants) loop.add_input(invariant->input(0));
    loops[loop.name()] = &frame;
    for (size_t k = 0; k < frame.variables.size(); ++k) {
      if (frame.variables[k].exit == nullptr) continue;
      ge::tf::NodeDef& exit = stand_ins.emplace_back();
      exit.set_name(frame.variables[k].exit->name());
      exit.set_op(kWhileExitOp);
      exit.add_input(fmt::format("{}:{}", loop.name(), k));
    }
  }
  std::vector<const ge::tf::NodeDef*> outer_nodes;
  std::unordered_map<std::string, const ge::tf::NodeDef*> outer_by_name;
  for (const ge::tf::NodeDef& node : model.graph.node()) {
    if (!in_loops.count(node.name())) outer_nodes.push_back(&node);
  }
  for (const ge::tf::NodeDef& node : stand_ins) outer_nodes.push_back(&node);
  for (const ge::tf::NodeDef* node : outer_nodes) outer_by_name[node->name()] = node;

  GraphBuilder b(std::filesystem::path(path).stem().string());
  // Translates nodes into a builder (the outer graph's or a loop body's). A
  // loop body may read constants of the outer graph; they are added to it too.
  tf_import::TranslateNodes translate = [&](const std::vector<const ge::tf::NodeDef*>& nodes, GraphBuilder& builder,
                                            tf_import::NodeValues& made) {
    for (const ge::tf::NodeDef* node : nodes) {
      if (made.count(node->name())) continue;
      if (node->op() == "Placeholder") {
        made[node->name()] = {AddPlaceholder(builder, *node, options, path)};
        continue;
      }
      if (node->op() == "Const") {
        made[node->name()] = {AddConst(builder, *node, model)};
        continue;
      }
      if (node->op() == "NoOp") continue;
      std::vector<Value*> inputs;
      for (const std::string& input : node->input()) {
        const InputRef ref = ParseInput(input);
        if (ref.control) continue;
        if (!made.count(ref.node)) {
          const auto source = by_name.find(ref.node);
          if (source == by_name.end() || source->second->op() != "Const") {
            throw Error(ErrorCode::kInvalidModel, fmt::format("{}: node '{}' ({}) reads '{}' across the boundary of a "
                                                              "while loop without an Enter or Exit", path,
                                                              node->name(), node->op(), input));
          }
          made[ref.node] = {AddConst(builder, *source->second, model)};
        }
        const std::vector<Value*>& outputs = made[ref.node];
        if (ref.index < 0 || static_cast<size_t>(ref.index) >= outputs.size()) {
          throw Error(ErrorCode::kInvalidModel, fmt::format("{}: node '{}' ({}) reads '{}', which does not exist",
                                                            path, node->name(), node->op(), input));
        }
        inputs.push_back(outputs[ref.index]);
      }
      if (node->op() == kWhileLoopOp) {
        made[node->name()] = tf_import::TranslateWhileLoop(*loops.at(node->name()), inputs, builder, translate, path);
        continue;
      }
      if (node->op() == kWhileExitOp) {
        made[node->name()] = inputs;
        continue;
      }
      const auto translator = tf_import::AllTfTranslators().find(node->op());
      if (translator == tf_import::AllTfTranslators().end()) {
        throw Error(ErrorCode::kUnsupported,
                    fmt::format("{}: node '{}' ({}) is outside the pattern of a while loop (TensorFlow 1 conditionals "
                                "are not supported)", path, node->name(), node->op()));
      }
      TfNodeContext ctx(*node, builder, std::move(inputs), path);
      made[node->name()] = translator->second(ctx);
    }
  };
  tf_import::NodeValues made;
  translate(Ordered(outer_nodes, outer_by_name, path), b, made);
  std::unordered_set<std::string> read;  // nodes some data input of the outer graph reads
  for (const ge::tf::NodeDef* node : outer_nodes) {
    for (const std::string& input : node->input()) {
      const InputRef ref = ParseInput(input);
      if (!ref.control) read.insert(ref.node);
    }
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
    for (const ge::tf::NodeDef* node : outer_nodes) {
      if (IsSourceOrNoOp(node->op()) || read.count(node->name())) continue;
      const std::vector<Value*>& values = made[node->name()];
      for (size_t i = 0; i < values.size(); ++i) {
        outputs.push_back(values[i]);
        names.push_back(TensorName(node->name(), static_cast<int>(i)));
      }
    }
  }
  if (outputs.empty()) throw Error(ErrorCode::kInvalidModel, fmt::format("{}: the graph computes nothing", path));
  for (size_t i = 0; i < outputs.size(); ++i) outputs[i]->set_name(names[i]);
  b.Outputs(outputs);
  return b.Build();
}

}  // namespace ge
