// What the fusion passes (layer_norm_fusion, gelu_fusion, matmul_bias_fusion,
// conv_post_op_fusion) share: walking a chain of single-use values,
// recognising the constants of a formula, and replacing a matched chain by one
// node without changing what the graph computes or the names it exposes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "ge/graph.h"
#include "passes/pass.h"

namespace ge::passes {

// The questions a fusion asks while it walks a candidate pattern.
class PatternMatcher {
 public:
  explicit PatternMatcher(const Graph& graph);

  // Whether `node` may disappear into a fused node: it has the op type, one
  // output, and no control edges in either direction (a control edge would
  // order something against an intermediate that no longer exists).
  bool Absorbable(const Node* node, const std::string& op_type) const;

  // The node of `op_type` that is the only consumer of `value`, else nullptr.
  // A graph output is never an intermediate: its value must stay observable.
  // The consumer may read the value through several inputs (Mul(d, d)).
  Node* SoleUser(const Value* value, const std::string& op_type) const;

  // The nodes reading `value` (each once), or nothing when it is a graph output.
  std::vector<Node*> Users(const Value* value) const;

 private:
  const Graph& graph_;
  std::unordered_set<const Node*> control_dependents_;
};

// For a node with two inputs, one of them `known`: the other one (the second
// when both are `known`); nullptr when `known` is not an input.
Value* OtherInput(const Node& node, const Value* known);

// The dtypes the fused kernels compute in (float16/bfloat16 internally in float).
bool IsFusableFloat(DataType dtype);

// Whether `value` is a float32/float16/bfloat16 constant of at least one
// element, all of them equal to `expected` rounded to the constant's dtype:
// the relative difference may be one machine epsilon of that dtype (2^-23,
// 2^-10, 2^-7), so 0.70710677f and 0.7071 in float16 both count as 1/sqrt(2)
// while a constant that means something else does not.
bool IsUniformConstant(const Value* value, double expected);

// The single value of a float32/float16/bfloat16 constant whose elements are
// all equal, else nullopt.
std::optional<double> UniformConstantValue(const Value* value);

// One float constant of `dtype` (float32/float16/bfloat16) and `shape` filled with `value`.
Tensor FilledTensor(DataType dtype, Shape shape, float value);

// Moves every use of `from` (graph outputs included) to `to`, which also takes
// over its name: downstream names stay what the model called them, not only
// the graph outputs' (as with ReplaceValue). `from` gets `to`'s old name.
void ReplaceKeepingName(Graph& graph, Value* from, Value* to);

// A matched pattern and the node that replaces it.
struct Fusion {
  std::string pass_name;       // for the implementation-mode reason
  std::string op_type;         // of the fused node
  std::vector<Value*> inputs;  // of the fused node
  AttrMap attrs;               // of the fused node
  std::vector<Node*> pattern;  // the nodes it replaces, in data order
  Value* output = nullptr;     // the pattern's result, produced by pattern.back()
};

// Replaces fusion.pattern by one node computing fusion.output. The new output
// takes over the old one's name, dtype, shape and uses (downstream nodes and
// graph outputs see the same name); the pattern's nodes are removed, their
// now unused constants left to dead_code_elimination. The node is named after
// the scope of the pattern's last node ("/layers.0/norm1/" + op_type).
//
// The fused node runs the implementation the replaced nodes ran: the fast one
// only when every replaced node with a choice ran high_performance, else its
// kernel's default (the precise one). Otherwise a fusion would silently change
// results, e.g. turn an exported erf Gelu into the tanh approximation that
// op_select_implmode's default picks for Gelu nodes. Returns the fused node.
Node* ApplyFusion(Graph& graph, const PassContext& ctx, Fusion fusion);

// Tries `match` on every node of anchor_op_type, in topological order, and
// applies each fusion it returns; true when any applied. The matcher is built
// once per run: fusing removes only nodes without control edges, so its view
// of control dependents stays valid.
bool FuseAll(Graph& graph, const PassContext& ctx, const std::string& anchor_op_type,
             const std::function<std::optional<Fusion>(Node*)>& match);

// Whether the device has the fused op's kernel for dtype; true when the
// context does not say (pass tests run without a device).
bool DeviceHasKernel(const PassContext& ctx, const std::string& op_type, DataType dtype);

}  // namespace ge::passes
