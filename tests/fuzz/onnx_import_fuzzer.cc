// ONNX import + compile + one run, from the bytes of a model file. Seeds: the
// ONNX node conformance models; the structure-aware mutator (onnx_mutator.cc)
// edits attributes, dims, tensors and op types of models that parse.
#include "fuzz_target.h"
#include "ge/error.h"
#include "ge/graph.h"
#include "ge/onnx_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    std::shared_ptr<const ge::CompiledModel> model =
        ge::CompiledModel::Compile(ge::ImportOnnxBuffer(data, size), ge::fuzz::SmallRunOptions());
    ge::fuzz::RunOnZeros(*model);
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
