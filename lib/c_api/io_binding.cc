// IO binding: the C face of ge::IoBinding.
#include <fmt/core.h>

#include "c_api_internal.h"

extern "C" {

ge_status ge_io_binding_create(const ge_model* model, ge_io_binding** out) {
  return ge::capi::Guard("ge_io_binding_create", [&] {
    ge::capi::Require(model, "model");
    ge::capi::Require(out, "out");
    *out = ToC(new ge::capi::IoBindingHandle{ge::IoBinding(FromC(model)->model)});
  });
}

void ge_io_binding_release(ge_io_binding* binding) { delete FromC(binding); }

ge_status ge_io_binding_bind_input(ge_io_binding* binding, const char* name, const ge_tensor* tensor) {
  return ge::capi::Guard("ge_io_binding_bind_input", [&] {
    ge::capi::Require(binding, "binding");
    const std::string input = ge::capi::RequireString(name, "name");
    if (tensor == nullptr) return FromC(binding)->binding.UnbindInput(input);
    FromC(binding)->binding.BindInput(input, FromC(tensor)->tensor);
  });
}

ge_status ge_io_binding_bind_output(ge_io_binding* binding, const char* name, const ge_tensor* tensor) {
  return ge::capi::Guard("ge_io_binding_bind_output", [&] {
    ge::capi::Require(binding, "binding");
    const std::string output = ge::capi::RequireString(name, "name");
    if (tensor == nullptr) return FromC(binding)->binding.UnbindOutput(output);
    FromC(binding)->binding.BindOutput(output, FromC(tensor)->tensor);
  });
}

ge_status ge_io_binding_run(ge_io_binding* binding) {
  return ge::capi::Guard("ge_io_binding_run", [&] {
    ge::capi::Require(binding, "binding");
    FromC(binding)->binding.Run();
  });
}

ge_status ge_io_binding_output(const ge_io_binding* binding, size_t index, ge_tensor** out) {
  return ge::capi::Guard("ge_io_binding_output", [&] {
    ge::capi::Require(binding, "binding");
    ge::capi::Require(out, "out");
    const ge::IoBinding& bound = FromC(binding)->binding;
    if (bound.outputs().empty()) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument, "no outputs: no run has succeeded since the last failure or at all");
    }
    if (index >= bound.outputs().size()) {
      throw ge::Error(ge::ErrorCode::kInvalidArgument, fmt::format("index {} is out of range: the model has {} outputs",
                                                                   index, bound.outputs().size()));
    }
    *out = ToC(new ge::capi::TensorHandle{bound.outputs()[index]});
  });
}

}  // extern "C"
