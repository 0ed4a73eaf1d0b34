// Captures the intermediate values of a model run, for layer-by-layer
// comparison and for calibration.
//
// The graph is compiled once as usual, so that the optimization passes
// (BatchNorm folding, identity removal, constant folding) decide which values
// exist; the device's own rewrites stay off (quant/device_independent_compile.h).
// The optimized graph is then cloned with the wanted values appended to its
// outputs and compiled again the same way; passes keep graph
// outputs and their names, and the constructor checks that each captured value
// kept its name.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::quant {

class ActivationCapture {
 public:
  // Captures every non-constant value of the optimized graph (graph inputs
  // included), in the topological order of their producers.
  explicit ActivationCapture(const Graph& graph, const Options& options = {});
  // Captures only the named values of the optimized graph, in the given order
  // (calibration wants just the inputs of the quantizable layers). Throws
  // ge::Error (kNotFound) for a name that is not a non-constant value of the
  // optimized graph, listing some valid names.
  ActivationCapture(const Graph& graph, const std::vector<std::string>& value_names, const Options& options = {});

  // The captured values, described as in graph().
  const std::vector<TensorInfo>& values() const { return values_; }
  // The captured values themselves, in graph(); same order as values().
  const std::vector<const Value*>& graph_values() const { return graph_values_; }
  const std::vector<TensorInfo>& inputs() const { return optimized_->inputs(); }
  const std::vector<TensorInfo>& outputs() const { return optimized_->outputs(); }
  // The optimized graph whose values are captured.
  const Graph& graph() const { return optimized_->graph(); }

  // One tensor per captured value, in the order of values().
  std::vector<Tensor> Run(const std::vector<Tensor>& inputs) const;

  struct Captured {
    std::vector<Tensor> outputs;  // the graph's outputs, in the order of outputs()
    std::vector<Tensor> values;   // in the order of values()
  };
  // The captured values and the graph outputs of one run.
  Captured RunWithOutputs(const std::vector<Tensor>& inputs) const;

 private:
  void Build(const std::vector<const Value*>& wanted, const Options& options);

  std::shared_ptr<const CompiledModel> optimized_;  // owns graph()
  std::shared_ptr<const CompiledModel> capture_;    // graph() plus the captured values as outputs
  std::vector<const Value*> graph_values_;
  std::vector<TensorInfo> values_;
  std::vector<size_t> output_slots_;  // capture_ output index of each captured value
};

}  // namespace ge::quant
