// Control-flow nodes (If, Loop, Scan) at run time. Their subgraphs are
// models of their own, compiled once with the enclosing model's options and
// run through CompiledModel::Run; the node's outputs are whatever shapes
// the subgraphs produce, so a model holding one always runs dynamically.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/graph.h"

namespace ge::runtime {

class ControlFlowOp {
 public:
  virtual ~ControlFlowOp() = default;

  // Whether nodes of this op type run through a ControlFlowOp (not a kernel).
  static bool Handles(std::string_view op_type);
  // Compiles the node's subgraphs. Throws ge::Error naming the node when one
  // does not compile.
  static std::unique_ptr<ControlFlowOp> Create(const Node& node, const Options& options);

  // `inputs` follow the node's inputs (an empty Tensor for an absent optional
  // one). Returns one tensor per node output, each a buffer of its own.
  // Throws ge::Error naming the node (and the iteration) on failure.
  virtual std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const = 0;
};

}  // namespace ge::runtime
