#include "graph/onnx/onnx_reader.h"

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>

#include "ge/error.h"
#include "graph/mapped_file.h"

namespace ge::onnx_import {

onnx::ModelProto ParseOnnxModel(const void* data, size_t size, const std::string& origin) {
  if (size > static_cast<size_t>(INT_MAX)) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: not a valid ONNX model: {} bytes exceed protobuf's 2 GiB message limit (large "
                            "weights belong in external data)",
                            origin, size));
  }
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: not a valid ONNX model: protobuf parsing of {} bytes failed (truncated file or not "
                            "a ModelProto)",
                            origin, size));
  }
  // An empty or unlucky byte string can parse as a message with nothing in it.
  if (!model.has_graph()) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: not a valid ONNX model: it has no graph (empty, truncated or not a ModelProto)",
                            origin));
  }
  return model;
}

onnx::ModelProto ParseOnnxFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw Error(ErrorCode::kNotFound, fmt::format("{}: no such ONNX model file", path.string()));
  }
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(ErrorCode::kIoError, fmt::format("{}: is a directory, not an ONNX model file", path.string()));
  }
  const std::shared_ptr<const MappedFile> file = MappedFile::Open(path.string());
  return ParseOnnxModel(file->data(), file->size(), path.string());
}

void CheckOnnxModel(const onnx::ModelProto& model, const std::string& origin) {
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {  // onnx::checker::ValidationError and what the checker's helpers throw
    throw Error(ErrorCode::kInvalidModel, fmt::format("{}: the ONNX checker rejected the model: {}", origin, e.what()));
  }
}

void InferOnnxShapes(onnx::ModelProto& model) {
  // Inference may have rewritten part of the graph's typing when it throws: keep copies to restore.
  const auto value_info = model.graph().value_info();
  const auto outputs = model.graph().output();
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception&) {
    *model.mutable_graph()->mutable_value_info() = value_info;
    *model.mutable_graph()->mutable_output() = outputs;
  }
}

}  // namespace ge::onnx_import
