#include "ge/io_binding.h"

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#include "graph/shape_accepts.h"

namespace ge {
namespace {

// The position of `name` among `infos` ("input" or "output" in messages).
size_t PositionOf(const std::vector<TensorInfo>& infos, const std::string& name, const char* kind) {
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].name == name) return i;
  }
  std::vector<std::string> names;
  for (const TensorInfo& info : infos) names.push_back("'" + info.name + "'");
  throw Error(ErrorCode::kInvalidArgument,
              fmt::format("IoBinding: the model has no {} '{}'; its {}s are {}", kind, name, kind, fmt::join(names, ", ")));
}

void CheckFits(const TensorInfo& info, const Tensor& tensor, const char* kind) {
  if (tensor.empty()) {
    throw Error(ErrorCode::kInvalidArgument, fmt::format("IoBinding: the tensor bound to {} '{}' is empty", kind,
                                                         info.name));
  }
  if (tensor.dtype() != info.dtype || !ShapeAccepts(info.shape, tensor.shape())) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("IoBinding: {} '{}' is {} {}, but the bound tensor is {} {}", kind, info.name,
                            DataTypeName(info.dtype), info.shape.ToString(), DataTypeName(tensor.dtype()),
                            tensor.shape().ToString()));
  }
}

}  // namespace

IoBinding::IoBinding(std::shared_ptr<const CompiledModel> model) : model_(std::move(model)) {
  if (!model_) throw Error(ErrorCode::kInvalidArgument, "IoBinding: the model is null");
  inputs_.resize(model_->inputs().size());
  output_buffers_.resize(model_->outputs().size());
}

void IoBinding::BindInput(const std::string& name, Tensor tensor) {
  const size_t position = PositionOf(model_->inputs(), name, "input");
  CheckFits(model_->inputs()[position], tensor, "input");
  inputs_[position] = std::move(tensor);
}

void IoBinding::BindOutput(const std::string& name, Tensor buffer) {
  const size_t position = PositionOf(model_->outputs(), name, "output");
  CheckFits(model_->outputs()[position], buffer, "output");
  output_buffers_[position] = std::move(buffer);
}

void IoBinding::UnbindInput(const std::string& name) { inputs_[PositionOf(model_->inputs(), name, "input")] = Tensor(); }

void IoBinding::UnbindOutput(const std::string& name) {
  output_buffers_[PositionOf(model_->outputs(), name, "output")] = Tensor();
}

void IoBinding::ClearInputs() { std::fill(inputs_.begin(), inputs_.end(), Tensor()); }
void IoBinding::ClearOutputs() { std::fill(output_buffers_.begin(), output_buffers_.end(), Tensor()); }

void IoBinding::Run() {
  outputs_.clear();
  for (size_t i = 0; i < inputs_.size(); ++i) {
    if (inputs_[i].empty()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("IoBinding::Run: input '{}' is not bound", model_->inputs()[i].name));
    }
  }
  outputs_ = model_->RunInto(inputs_, output_buffers_);
}

const Tensor& IoBinding::output(const std::string& name) const {
  const size_t position = PositionOf(model_->outputs(), name, "output");
  if (outputs_.empty()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("IoBinding: output '{}' is not available: no run has succeeded since the last failure "
                            "or at all", name));
  }
  return outputs_[position];
}

}  // namespace ge
