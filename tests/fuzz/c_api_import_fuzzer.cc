// The C ABI's import from memory and compile: what a Python or C caller
// reaches. No exception may cross the ABI, so every input must come back as
// a status; a status of GE_INTERNAL is a finding too (it means a library
// exception was caught at the boundary instead of a named error).
#include <cstdlib>

#include "fuzz_target.h"
#include "ge_c/ge_c.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ge_graph* graph = nullptr;
  ge_status status = ge_onnx_import_memory(data, size, nullptr, &graph);
  if (status == GE_OK) {
    const char* keys[] = {"ge.exec.intraOpThreads", "ge.maxTensorBytes"};
    const char* values[] = {"1", "16777216"};
    ge_model* model = nullptr;
    status = ge_compile(graph, keys, values, 2, &model);
    ge_model_release(model);
    ge_graph_release(graph);
  }
  if (status == GE_INTERNAL) std::abort();
  return 0;
}
