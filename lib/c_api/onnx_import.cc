// ONNX import into a complete graph handle.
#include "c_api_internal.h"
#include "ge/onnx_importer.h"

namespace {

ge_graph* Wrap(std::unique_ptr<ge::Graph> imported) {
  auto graph = std::make_unique<ge::capi::GraphHandle>();
  graph->name = imported->name();
  graph->complete = std::move(imported);
  return ToC(graph.release());
}

}  // namespace

extern "C" {

ge_status ge_onnx_import_file(const char* path, ge_graph** out) {
  return ge::capi::Guard("ge_onnx_import_file", [&] {
    ge::capi::Require(out, "out");
    *out = Wrap(ge::ImportOnnxFile(ge::capi::RequireString(path, "path")));
  });
}

ge_status ge_onnx_import_memory(const void* data, size_t size, const char* base_dir, ge_graph** out) {
  return ge::capi::Guard("ge_onnx_import_memory", [&] {
    ge::capi::Require(out, "out");
    ge::capi::Require(data, "data");
    *out = Wrap(ge::ImportOnnxBuffer(data, size, base_dir == nullptr ? "" : base_dir));
  });
}

}  // extern "C"
