// Control-flow nodes (If, Loop, Scan, PartitionedCall) at run time. Their
// subgraphs are models of their own, compiled once with the enclosing
// model's options and run through CompiledModel::Run; the node's outputs are
// whatever shapes the subgraphs produce, so a model holding one always runs
// dynamically.
#pragma once

#include <memory>
#include <string>
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

// Loop, Scan and SequenceMap list their implicit inputs last, attribute
// num_implicit_inputs of them: the index of the first.
size_t FirstImplicitInput(const Node& node);

// Compiles the subgraph in attribute `attr` of a control-flow node as a
// model of its own, with the enclosing model's options. The node's inputs
// from `invariant_from` on are the same in every run of the subgraph (the
// implicit inputs: outer values it reads) and node input i is subgraph input
// i - input_offset. Those that are constants in the enclosing model (a
// loop body's weights) become constants of the subgraph, which the compile
// folds and packs once, as in the outer model, instead of a run-time input
// read afresh every iteration. Errors name the node and the subgraph.
std::shared_ptr<const CompiledModel> CompileSubgraph(const Node& node, const std::string& attr, const Options& options,
                                                     size_t invariant_from, size_t input_offset);

}  // namespace ge::runtime
