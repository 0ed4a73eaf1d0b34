// The steps that turn bytes into a checked onnx::ModelProto. The importer's
// driver (onnx_importer.cc) runs them in order, with its own op support scan
// between parsing and checking so that unsupported ops are reported as such.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

namespace ge::onnx_import {

// Parses a ModelProto; a truncated or garbage buffer gives kInvalidModel
// "<origin>: not a valid ONNX model: ...".
onnx::ModelProto ParseOnnxModel(const void* data, size_t size, const std::string& origin);

// Parses a model file, streamed through a small buffer (the file's bytes never
// sit in this process's memory next to the parsed message). Errors
// (kNotFound, kIoError, and kInvalidModel as above) name the path.
onnx::ModelProto ParseOnnxFile(const std::filesystem::path& path);

// Runs onnx::checker::check_model; its complaints become kInvalidModel naming origin.
void CheckOnnxModel(const onnx::ModelProto& model, const std::string& origin);

// Runs ONNX shape inference, which fills graph.value_info. It can throw on
// models the checker accepts (e.g. contradicting value_info); that is not
// fatal: the model then keeps the value_info it came with, and the importer
// works with fewer known shapes.
void InferOnnxShapes(onnx::ModelProto& model);

}  // namespace ge::onnx_import
