#include "graph/tf/tf_while_loop.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "ge/error.h"
#include "graph/tf/tf_input_ref.h"

namespace ge::tf_import {
namespace {

using NodeDef = ge::tf::NodeDef;
using NodesByName = std::unordered_map<std::string, const NodeDef*>;

bool IsStructural(const std::string& op) {
  return op == "Enter" || op == "Merge" || op == "Switch" || op == "NextIteration" || op == "Exit" ||
         op == "LoopCond";
}

std::string FrameName(const NodeDef& enter) {
  const auto it = enter.attr().find("frame_name");
  return it != enter.attr().end() ? it->second.s() : std::string();
}

bool IsConstantEnter(const NodeDef& enter) {
  const auto it = enter.attr().find("is_constant");
  return it != enter.attr().end() && it->second.b();
}

[[noreturn]] void Malformed(const std::string& origin, const std::string& frame, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: while loop '{}': {}", origin, frame, message));
}

const NodeDef* Producer(const NodesByName& by_name, const std::string& input) {
  const auto it = by_name.find(ParseInput(input).node);
  return it != by_name.end() ? it->second : nullptr;
}

// The members of the frame the Enter nodes `enters` open: every node reached
// from them along data and control edges, up to and including the Exits.
std::unordered_set<std::string> Members(const std::vector<const NodeDef*>& enters,
                                        const std::unordered_map<std::string, std::vector<const NodeDef*>>& readers,
                                        const std::string& frame, const std::string& origin) {
  std::unordered_set<std::string> members;
  std::vector<const NodeDef*> pending(enters.begin(), enters.end());
  while (!pending.empty()) {
    const NodeDef* node = pending.back();
    pending.pop_back();
    if (!members.insert(node->name()).second || node->op() == "Exit") continue;
    if (node->op() == "Enter" && FrameName(*node) != frame) {
      throw Error(ErrorCode::kUnsupported, fmt::format("{}: while loop '{}' holds another loop ('{}'); nested while "
                                                       "loops are not supported", origin, frame, FrameName(*node)));
    }
    if (const auto it = readers.find(node->name()); it != readers.end()) {
      pending.insert(pending.end(), it->second.begin(), it->second.end());
    }
  }
  return members;
}

// The non-structural members that `roots` read, directly or not, inputs
// first (iterative: a body may be a chain of thousands of nodes).
std::vector<const NodeDef*> Upstream(const std::vector<std::string>& roots, const WhileFrame& frame,
                                     const NodesByName& by_name) {
  std::vector<const NodeDef*> order;
  std::unordered_set<std::string> seen;
  auto member = [&](const std::string& input) -> const NodeDef* {
    const NodeDef* node = Producer(by_name, input);
    if (node == nullptr || !frame.members.count(node->name()) || IsStructural(node->op())) return nullptr;
    return node;
  };
  // (node, inputs visited): a node is emitted when its inputs have been.
  std::vector<std::pair<const NodeDef*, bool>> stack;
  for (auto root = roots.rbegin(); root != roots.rend(); ++root) {
    if (const NodeDef* node = member(*root)) stack.emplace_back(node, false);
  }
  while (!stack.empty()) {
    auto [node, expanded] = stack.back();
    stack.pop_back();
    if (expanded) {
      order.push_back(node);
      continue;
    }
    if (!seen.insert(node->name()).second) continue;
    stack.emplace_back(node, true);
    for (auto input = node->input().rbegin(); input != node->input().rend(); ++input) {
      const NodeDef* producer = member(*input);
      if (producer != nullptr && !seen.count(producer->name())) stack.emplace_back(producer, false);
    }
  }
  return order;
}

// A structural node with fewer data inputs than its role needs.
void RequireInputs(const NodeDef& node, int count, const std::string& frame, const std::string& origin) {
  if (node.input_size() < count || ParseInput(node.input(0)).control) {
    Malformed(origin, frame, fmt::format("{} '{}' has {} inputs; it needs {}", node.op(), node.name(),
                                         node.input_size(), count));
  }
}

// The value `input` names among those made, or a malformed-loop error.
Value* MadeValue(const NodeValues& made, const std::string& input, const std::string& frame, const std::string& origin) {
  const InputRef ref = ParseInput(input);
  const auto it = made.find(ref.node);
  if (ref.control || it == made.end() || ref.index < 0 || static_cast<size_t>(ref.index) >= it->second.size()) {
    Malformed(origin, frame, fmt::format("'{}' is not a value of the loop", input));
  }
  return it->second[static_cast<size_t>(ref.index)];
}

}  // namespace

std::vector<WhileFrame> FindWhileFrames(const ge::tf::GraphDef& graph, const NodesByName& by_name,
                                        const std::string& origin) {
  std::map<std::string, std::vector<const NodeDef*>> enters;  // by frame, in graph order
  std::unordered_map<std::string, std::vector<const NodeDef*>> readers;
  for (const NodeDef& node : graph.node()) {
    if (node.op() == "Enter") enters[FrameName(node)].push_back(&node);
    for (const std::string& input : node.input()) readers[ParseInput(input).node].push_back(&node);
  }
  // Every frame's extent first, so that a nested loop is reported as such
  // rather than as a malformed inner one.
  std::vector<WhileFrame> frames;
  for (const auto& [name, frame_enters] : enters) {
    WhileFrame& frame = frames.emplace_back();
    frame.name = name;
    frame.members = Members(frame_enters, readers, name, origin);
  }
  for (WhileFrame& frame : frames) {
    const std::string& name = frame.name;
    const std::vector<const NodeDef*>& frame_enters = enters.at(name);
    for (const NodeDef& node : graph.node()) {
      if (!frame.members.count(node.name())) continue;
      if (node.op() == "LoopCond") {
        if (frame.loop_cond != nullptr) Malformed(origin, name, "it has two LoopCond nodes");
        RequireInputs(node, 1, name, origin);
        frame.loop_cond = &node;
      }
      if (node.op() != "Merge") continue;
      if (node.input_size() != 2) Malformed(origin, name, fmt::format("Merge '{}' has {} inputs, not 2", node.name(), node.input_size()));
      LoopVariable variable;
      variable.merge = &node;
      for (const std::string& input : node.input()) {
        const NodeDef* from = Producer(by_name, input);
        if (from != nullptr && from->op() == "Enter") variable.enter = from;
        if (from != nullptr && from->op() == "NextIteration") variable.next_iteration = from;
      }
      for (const NodeDef* reader : readers[node.name()]) {
        if (reader->op() == "Switch") variable.switch_node = reader;
      }
      if (variable.enter == nullptr || variable.next_iteration == nullptr || variable.switch_node == nullptr) {
        Malformed(origin, name, fmt::format("Merge '{}' is not fed by an Enter and a NextIteration and read by a "
                                            "Switch", node.name()));
      }
      RequireInputs(*variable.enter, 1, name, origin);
      RequireInputs(*variable.next_iteration, 1, name, origin);
      for (const NodeDef* reader : readers[variable.switch_node->name()]) {
        if (reader->op() == "Exit") variable.exit = reader;
      }
      frame.variables.push_back(variable);
    }
    if (frame.loop_cond == nullptr) Malformed(origin, name, "it has no LoopCond");
    for (const NodeDef* enter : frame_enters) {
      const bool carried = std::any_of(frame.variables.begin(), frame.variables.end(),
                                       [&](const LoopVariable& v) { return v.enter == enter; });
      if (!carried && !IsConstantEnter(*enter)) {
        Malformed(origin, name, fmt::format("Enter '{}' feeds no Merge and is not constant", enter->name()));
      }
      if (!carried) {
        RequireInputs(*enter, 1, name, origin);
        frame.invariants.push_back(enter);
      }
    }
    frame.cond_nodes = Upstream({frame.loop_cond->input(0)}, frame, by_name);
    std::vector<std::string> next_inputs;
    for (const LoopVariable& v : frame.variables) {
      next_inputs.insert(next_inputs.end(), v.next_iteration->input().begin(), v.next_iteration->input().end());
    }
    frame.body_nodes = Upstream(next_inputs, frame, by_name);
  }
  return frames;
}

std::vector<Value*> TranslateWhileLoop(const WhileFrame& frame, const std::vector<Value*>& entered,
                                       GraphBuilder& outer, const TranslateNodes& translate,
                                       const std::string& origin) {
  const size_t count = frame.variables.size();
  if (entered.size() != count + frame.invariants.size()) {
    Malformed(origin, frame.name, "the loop's inputs do not match its Enter nodes");
  }
  // The condition on the entered values decides whether the body runs at all.
  NodeValues before;
  for (size_t k = 0; k < count; ++k) before[frame.variables[k].merge->name()] = {entered[k]};
  for (size_t i = 0; i < frame.invariants.size(); ++i) before[frame.invariants[i]->name()] = {entered[count + i]};
  translate(frame.cond_nodes, outer, before);
  Value* first_cond = MadeValue(before, frame.loop_cond->input(0), frame.name, origin);

  // The body: (iteration, condition, variables..., invariants...) -> (condition, next variables...).
  GraphBuilder body(frame.name + "/body");
  body.Input("iteration", DataType::kInt64, Shape());
  body.Input("condition", DataType::kBool, Shape());
  NodeValues made;
  for (size_t k = 0; k < count; ++k) {
    const LoopVariable& v = frame.variables[k];
    Value* current = body.Input(v.merge->name(), entered[k]->dtype(), entered[k]->shape());
    made[v.switch_node->name()] = {current, current};  // :1 runs the body; :0 only leaves through Exit
  }
  for (size_t i = 0; i < frame.invariants.size(); ++i) {
    made[frame.invariants[i]->name()] = {
        body.Input(frame.invariants[i]->name(), entered[count + i]->dtype(), entered[count + i]->shape())};
  }
  translate(frame.body_nodes, body, made);
  std::vector<Value*> next;
  for (const LoopVariable& v : frame.variables) {
    next.push_back(MadeValue(made, v.next_iteration->input(0), frame.name, origin));
    made[v.merge->name()] = {next.back()};
  }
  translate(frame.cond_nodes, body, made);
  std::vector<Value*> body_outputs = {MadeValue(made, frame.loop_cond->input(0), frame.name, origin)};
  body_outputs.insert(body_outputs.end(), next.begin(), next.end());
  body.Outputs(body_outputs);
  std::shared_ptr<const Graph> body_graph = body.Build();

  std::vector<Value*> loop_inputs = {nullptr, first_cond};
  loop_inputs.insert(loop_inputs.end(), entered.begin(), entered.end());
  try {
    return outer.Op("Loop", loop_inputs,
                    {{"body", body_graph}, {"num_implicit_inputs", static_cast<int64_t>(frame.invariants.size())}},
                    count, frame.name + "#loop");
  } catch (const Error& e) {
    throw Error(e.code(), fmt::format("{}: while loop '{}' as ge Loop: {}", origin, frame.name, e.what()));
  }
}

}  // namespace ge::tf_import
