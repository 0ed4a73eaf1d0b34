// Turns the MODEL argument of `ge run` / `ge info` into a runnable CompiledModel.
#pragma once

#include <memory>
#include <string>

#include "ge/compiled_model.h"
#include "ge/tf_importer.h"
#include "progress.h"

namespace ge::cli {

enum class ModelFormat { kOnnx, kGem, kTensorFlow, kCaffe };

// Decides by the file's first bytes, then by its extension. Throws ge::Error:
// as RegularFile::Open for a file it cannot read or that is not a regular file
// (a FIFO, a device, a directory), kInvalidArgument when neither tells.
ModelFormat DetectModelFormat(const std::string& path);

// "onnx", "gem", "tensorflow", "caffe": how `ge info` names the format.
const char* ModelFormatName(ModelFormat format);

struct LoadedModel {
  std::shared_ptr<const CompiledModel> model;
  ModelFormat format = ModelFormat::kOnnx;
  // Import + compile for .onnx and TensorFlow, load for .gem: the time until the model can run.
  double prepare_ms = 0;
};

// What the import of a TensorFlow or Caffe model takes besides the file.
struct ImportChoices {
  TfImportOptions tf;
  // A Caffe net's trained weights; empty: MODEL's stem with .caffemodel when
  // that file exists, else the blobs the .prototxt holds.
  std::string caffe_weights;
};

// Imports an .onnx, TensorFlow or Caffe model (not a .gem).
std::unique_ptr<Graph> ImportModel(const std::string& path, ModelFormat format, const ImportChoices& choices);

// Imports and compiles an .onnx, TensorFlow or Caffe model with `options`,
// or loads a .gem (which is already compiled, so options are refused rather
// than silently ignored).
LoadedModel LoadModel(const std::string& path, const Options& options, Progress& progress,
                      const ImportChoices& choices = {});

}  // namespace ge::cli
