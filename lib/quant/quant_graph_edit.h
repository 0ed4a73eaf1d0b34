// Graph surgery the quantization rewrites share: inserting a node after a
// value while the downstream tensor keeps its name, swapping a node for
// another op under the same name, and the "_quant_layer" tag that says which
// layer a deploy node belongs to.
#pragma once

#include <string>
#include <vector>

#include "ge/graph.h"

namespace ge::quant {

// String attribute naming the layer (original node) a deploy node came from.
inline constexpr const char* kQuantLayerAttr = "_quant_layer";
// Bool attribute on AscendDequant / AscendQuant nodes of layers that must not be fused (skip_fusion).
inline constexpr const char* kSkipFusionAttr = "_skip_fusion";

// Whether the node carries the boolean attribute `attr` set to true.
bool Tagged(const Node& node, const char* attr);

// Rewires every use of `from` except those by `except` (and every graph
// output slot of `from`) to `to`.
void RedirectUses(Graph& graph, Value* from, Value* to, const Node* except);

// Adds `op_type` node `name` reading `value`, moves every other consumer of
// `value` onto its output, and gives that output `value`'s name, dtype and
// shape; `value` is renamed `renamed_value`. The tensor downstream code looks
// up by name is then the new node's output.
Node* InsertAfter(Graph& graph, Value* value, const std::string& op_type, const std::string& name,
                  const std::vector<Value*>& extra_inputs, const std::string& renamed_value);

// Replaces `node` (one output) by an `op_type` node with the same name, the
// given inputs, and the old output's name, dtype and shape; returns it.
Node* ReplaceKeepingName(Graph& graph, Node* node, const std::string& op_type, const std::vector<Value*>& inputs);

}  // namespace ge::quant
