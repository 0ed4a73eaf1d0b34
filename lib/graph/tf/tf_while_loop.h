// TensorFlow 1 while loops: one frame of Enter, Merge, Switch, LoopCond,
// NextIteration and Exit nodes (what tf.while_loop and tf.map_fn build in a
// frozen graph) becomes one ge Loop whose body is the frame's body, with the
// frame's condition computed once before the loop and again at the end of
// every iteration (ONNX's Loop tests its condition after the body).
//
// Each loop variable k is an Enter_k -> Merge_k(Enter_k, NextIteration_k) ->
// Switch_k(Merge_k, LoopCond) chain: Switch_k:1 feeds the body, whose value
// for the next iteration goes to NextIteration_k, and Switch_k:0 leaves
// through Exit_k. An Enter with is_constant is a value the body reads
// unchanged (a Loop implicit input). Nested frames are refused.
#pragma once

#include <functional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ge/builder.h"
#include "graph/tf/proto/tf_graph.pb.h"

namespace ge::tf_import {

struct LoopVariable {
  const ge::tf::NodeDef* enter = nullptr;
  const ge::tf::NodeDef* merge = nullptr;
  const ge::tf::NodeDef* switch_node = nullptr;
  const ge::tf::NodeDef* next_iteration = nullptr;
  const ge::tf::NodeDef* exit = nullptr;  // nullptr when nothing reads the final value
};

struct WhileFrame {
  std::string name;                                  // the frame_name of its Enter nodes
  std::vector<LoopVariable> variables;               // in the order of their Merge nodes in the graph
  std::vector<const ge::tf::NodeDef*> invariants;    // Enter nodes with is_constant
  const ge::tf::NodeDef* loop_cond = nullptr;
  std::vector<const ge::tf::NodeDef*> cond_nodes;    // from the Merges to LoopCond, inputs first
  std::vector<const ge::tf::NodeDef*> body_nodes;    // from the Switches to the NextIterations, inputs first
  std::unordered_set<std::string> members;           // every node of the frame, Enter to Exit
};

// The while frames of a graph; throws kUnsupported for nested frames and
// kInvalidModel for a frame whose nodes do not form the pattern above.
std::vector<WhileFrame> FindWhileFrames(const ge::tf::GraphDef& graph,
                                        const std::unordered_map<std::string, const ge::tf::NodeDef*>& by_name,
                                        const std::string& origin);

// The values each translated node gave, by node name.
using NodeValues = std::unordered_map<std::string, std::vector<Value*>>;
// Translates `nodes` (inputs first) into `builder`, reading and extending `made`.
using TranslateNodes =
    std::function<void(const std::vector<const ge::tf::NodeDef*>& nodes, GraphBuilder& builder, NodeValues& made)>;

// Adds the frame's Loop to `outer`, given the Enter nodes' outer values
// (variables, then invariants); returns the final value of each variable.
std::vector<Value*> TranslateWhileLoop(const WhileFrame& frame, const std::vector<Value*>& entered,
                                       GraphBuilder& outer, const TranslateNodes& translate, const std::string& origin);

}  // namespace ge::tf_import
