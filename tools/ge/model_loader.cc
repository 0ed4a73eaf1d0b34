#include "model_loader.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/core.h>

#include "ge/error.h"
#include "ge/caffe_importer.h"
#include "ge/onnx_importer.h"
#include "ge/tf_importer.h"
#include "gem_header.h"
#include "graph/escape_for_message.h"
#include "graph/regular_file.h"

namespace ge::cli {
namespace {

// An ONNX file is a serialized ModelProto whose first field is normally
// ir_version (field 1, varint): the tag byte 0x08.
constexpr unsigned char kOnnxFirstByte = 0x08;

}  // namespace

ModelFormat DetectModelFormat(const std::string& path) {
  const RegularFile file = RegularFile::Open(path, "model file");
  char head[8] = {};
  const size_t head_bytes = std::min<uint64_t>(file.size(), sizeof(head));
  file.ReadAt(0, head, head_bytes);
  const std::string_view magic(head, head_bytes);
  if (HasGemIdentifier(magic)) return ModelFormat::kGem;

  const std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".gem") return ModelFormat::kGem;  // the loader reports what is wrong with it
  if (extension == ".onnx") return ModelFormat::kOnnx;
  // A frozen GraphDef, in binary or text form, or a TensorFlow.js graph model.
  if (extension == ".pb" || extension == ".pbtxt" || extension == ".json") return ModelFormat::kTensorFlow;
  if (extension == ".prototxt") return ModelFormat::kCaffe;  // its weights: ImportChoices::caffe_weights
  if (!magic.empty() && static_cast<unsigned char>(magic[0]) == kOnnxFirstByte) return ModelFormat::kOnnx;
  throw Error(
      ErrorCode::kInvalidArgument,
      EscapeForMessage(fmt::format(
          "cannot tell the format of '{}': expected an ONNX model (.onnx), a TensorFlow model (.pb, .pbtxt, a "
          "TensorFlow.js model.json), a Caffe net (.prototxt) or a compiled ge model (.gem)", path)));
}

std::unique_ptr<Graph> ImportModel(const std::string& path, ModelFormat format, const ImportChoices& choices) {
  switch (format) {
    case ModelFormat::kTensorFlow: return ImportTensorFlowFile(path, choices.tf);
    case ModelFormat::kCaffe: {
      std::string weights = choices.caffe_weights;
      if (weights.empty()) {
        const std::filesystem::path sibling = std::filesystem::path(path).replace_extension(".caffemodel");
        if (std::filesystem::is_regular_file(sibling)) weights = sibling.string();
      }
      return ImportCaffeFiles(path, weights);
    }
    default: return ImportOnnxFile(path);
  }
}

const char* ModelFormatName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kGem: return "gem";
    case ModelFormat::kTensorFlow: return "tensorflow";
    case ModelFormat::kCaffe: return "caffe";
    default: return "onnx";
  }
}

LoadedModel LoadModel(const std::string& path, const Options& options, Progress& progress,
                      const ImportChoices& choices) {
  LoadedModel loaded;
  loaded.format = DetectModelFormat(path);
  const auto start = std::chrono::steady_clock::now();
  if (loaded.format == ModelFormat::kGem) {
    progress.Show(fmt::format("loading {} ...", path));
    loaded.model = CompiledModel::Load(path, options);  // refuses compile options by name
  } else {
    progress.Show(fmt::format("importing {} ...", path));
    std::unique_ptr<Graph> graph = ImportModel(path, loaded.format, choices);
    progress.Show(fmt::format("compiling {} ({} nodes) ...", path, graph->num_nodes()));
    try {
      loaded.model = CompiledModel::Compile(std::move(graph), options);
    } catch (const Error& e) {
      // Import errors name the file; compile errors name the node, so the
      // file is added here: the user may be running several models.
      throw Error(e.code(), fmt::format("{}: {}", path, e.what()));
    }
  }
  progress.Clear();
  loaded.prepare_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return loaded;
}

}  // namespace ge::cli
