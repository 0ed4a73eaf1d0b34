// The TensorFlow and Caffe imports (docs/tensorflow-import.md, docs/caffe-import.md):
// the first byte picks the format (a .pbtxt, a binary .pb, a TensorFlow.js
// model.json, a Caffe .prototxt with its blobs inline), the rest is the
// file. What imports is compiled and run once on zeros, as the ONNX target does.
#include "fuzz_target.h"
#include "ge/caffe_importer.h"
#include "ge/error.h"
#include "ge/tf_importer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kSuffixes[] = {".pbtxt", ".pb", ".json", ".prototxt"};
  const int format = data[0] % 4;
  const std::string& path = ge::fuzz::WriteScratchFile(kSuffixes[format], data + 1, size - 1);
  try {
    std::unique_ptr<ge::Graph> graph = format == 3 ? ge::ImportCaffeFiles(path) : ge::ImportTensorFlowFile(path);
    const auto model = ge::CompiledModel::Compile(std::move(graph), ge::fuzz::SmallRunOptions());
    ge::fuzz::RunOnZeros(*model);
  } catch (const ge::Error& error) {
    ge::fuzz::NoteRefusal(error);
  }
  return 0;
}
