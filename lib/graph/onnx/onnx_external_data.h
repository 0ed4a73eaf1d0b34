// Tensors whose bytes live in files next to the model (ONNX external data).
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

namespace ge::onnx_import {

// Reads the external data of every initializer and every tensor attribute of the
// main graph into raw_data, so that the checker, shape inference and tensor
// conversion see a self-contained model and never touch the file system.
//
// A location must be a relative path that stays inside `model_dir` after
// normalization and after resolving symlinks; absolute paths and paths that
// escape (`../`, links pointing outside) are refused with kInvalidModel naming
// the tensor and the location. An empty `model_dir` (a model given as a buffer
// without a base directory) refuses external data altogether.
// `origin` names the model in errors.
void LoadExternalData(onnx::ModelProto& model, const std::filesystem::path& model_dir, const std::string& origin);

}  // namespace ge::onnx_import
