// Running a compiled model: synchronously into caller-made or new tensors,
// and asynchronously with a C callback.
#include <cstring>

#include <fmt/core.h>

#include "c_api_internal.h"

namespace ge::capi {

void DeliverOutputs(std::vector<Tensor> results, ge_tensor** outputs, size_t num_outputs) {
  if (num_outputs != results.size()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("num_outputs is {} but the model has {} outputs", num_outputs, results.size()));
  }
  if (num_outputs > 0) Require(outputs, "outputs");
  // Check every caller-made tensor and make every new one before writing anything.
  std::vector<std::unique_ptr<TensorHandle>> fresh(num_outputs);
  for (size_t i = 0; i < num_outputs; ++i) {
    const Tensor& result = results[i];
    if (outputs[i] == nullptr) {
      fresh[i] = std::make_unique<TensorHandle>(TensorHandle{std::move(results[i])});
      continue;
    }
    const Tensor& target = FromC(outputs[i])->tensor;
    if (target.dtype() != result.dtype() || target.shape() != result.shape()) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("outputs[{}] is {} {} but the result is {} {}", i, DataTypeName(target.dtype()),
                              target.shape().ToString(), DataTypeName(result.dtype()), result.shape().ToString()));
    }
  }
  for (size_t i = 0; i < num_outputs; ++i) {
    if (fresh[i] != nullptr) {
      outputs[i] = ToC(fresh[i].release());
    } else if (results[i].nbytes() > 0) {
      std::memcpy(FromC(outputs[i])->tensor.data(), results[i].data(), results[i].nbytes());
    }
  }
}

}  // namespace ge::capi

namespace {

// Calls the C callback with the run's outcome; never throws.
void Report(ge_run_callback callback, void* user_data, ge::RunResult result) noexcept {
  std::vector<ge_tensor*> outputs;
  ge_status status = GE_OK;
  std::string message;
  if (!result.ok()) {
    status = ge::capi::StatusOf(result.error->code());
    message = result.error->what();
  } else {
    try {
      outputs.reserve(result.outputs.size());
      for (ge::Tensor& tensor : result.outputs) outputs.push_back(ToC(new ge::capi::TensorHandle{std::move(tensor)}));
    } catch (...) {
      for (ge_tensor* tensor : outputs) delete FromC(tensor);
      outputs.clear();
      status = GE_OUT_OF_MEMORY;
      message = "out of memory while handing over the outputs";
    }
  }
  callback(user_data, status, message.c_str(), status == GE_OK ? outputs.data() : nullptr,
           status == GE_OK ? outputs.size() : 0);
}

}  // namespace

extern "C" {

ge_status ge_model_run(const ge_model* model, ge_tensor* const* inputs, size_t num_inputs, ge_tensor** outputs,
                       size_t num_outputs) {
  return ge::capi::Guard("ge_model_run", [&] {
    ge::capi::Require(model, "model");
    const ge::CompiledModel& compiled = *FromC(model)->model;
    const std::vector<ge::Tensor> tensors = ge::capi::ToTensors(inputs, num_inputs, "inputs");
    if (num_outputs != compiled.outputs().size()) {  // before running, not after
      throw ge::Error(ge::ErrorCode::kInvalidArgument, fmt::format("num_outputs is {} but the model has {} outputs",
                                                                   num_outputs, compiled.outputs().size()));
    }
    ge::capi::DeliverOutputs(compiled.Run(tensors), outputs, num_outputs);
  });
}

ge_status ge_model_run_async(const ge_model* model, ge_tensor* const* inputs, size_t num_inputs,
                             ge_run_callback callback, void* user_data) {
  return ge::capi::Guard("ge_model_run_async", [&] {
    ge::capi::Require(model, "model");
    ge::capi::Require(reinterpret_cast<const void*>(callback), "callback");
    std::vector<ge::Tensor> tensors = ge::capi::ToTensors(inputs, num_inputs, "inputs");
    FromC(model)->model->RunAsync(std::move(tensors), [callback, user_data](ge::RunResult result) {
      Report(callback, user_data, std::move(result));
    });
  });
}

}  // extern "C"
