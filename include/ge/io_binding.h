// IO binding: a model's inputs and outputs bound by name to caller tensors,
// as ONNX Runtime's IoBinding binds them.
//
// Inputs are shared, not copied: a run reads the bound buffer as it is then.
// An output bound to a caller buffer is written there by the kernel that
// produces it (no output allocation, no copy); unbound outputs come back in
// buffers of ge's own. Binding the same buffer as a recurrent state's input
// and output (an LSTM's h and c) updates it in place: ge writes an output
// that overlaps an input only after every read of the inputs. A decoder
// binds its caches to buffers it keeps (for example over one allocation of
// the longest length, borrowed at each step's shape) and swaps them each
// step. Bind anew when a shape changes: a buffer's shape must equal the
// output's shape in the run.
//
// One binding serves one run at a time; several bindings may run one model
// at once from different threads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"
#include "ge/tensor.h"

namespace ge {

class GE_API IoBinding {
 public:
  explicit IoBinding(std::shared_ptr<const CompiledModel> model);

  // Throws kInvalidArgument listing the model's inputs (outputs) for an
  // unknown name, and naming the input for a tensor of another dtype or of a
  // shape its known dims refuse.
  void BindInput(const std::string& name, Tensor tensor);
  void BindOutput(const std::string& name, Tensor buffer);
  // The input must be bound again before the next run.
  void UnbindInput(const std::string& name);
  // The output comes back in a buffer of ge's own again.
  void UnbindOutput(const std::string& name);
  void ClearInputs();
  void ClearOutputs();

  // Runs the model with the bound tensors. Throws kInvalidArgument naming an
  // input left unbound, and whatever CompiledModel::RunInto throws.
  void Run();
  // The last run's outputs in the model's order (bound ones are the bound
  // tensors); empty before the first run and after a failed one.
  const std::vector<Tensor>& outputs() const { return outputs_; }
  // One of them by name; throws kInvalidArgument for an unknown name or
  // before a run.
  const Tensor& output(const std::string& name) const;

  const CompiledModel& model() const { return *model_; }

 private:
  std::shared_ptr<const CompiledModel> model_;
  std::vector<Tensor> inputs_;          // by input position; empty while unbound
  std::vector<Tensor> output_buffers_;  // by output position; empty where ge allocates
  std::vector<Tensor> outputs_;
};

}  // namespace ge
