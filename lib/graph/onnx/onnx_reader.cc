#include "graph/onnx/onnx_reader.h"

#include <fmt/core.h>
#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <climits>
#include <cstring>

#include "ge/error.h"
#include "graph/onnx/onnx_inference_guards.h"
#include "graph/regular_file.h"

namespace ge::onnx_import {

namespace {

// A few hundred reads for a model of tens of MB; below malloc's mmap
// threshold, so freeing the buffer does not raise that threshold and send
// later weight-sized blocks to the fragmenting main heap.
constexpr int kReadBlockBytes = 1 << 16;

void CheckMessageSize(uint64_t size, const std::string& origin) {
  if (size > static_cast<uint64_t>(INT_MAX)) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: not a valid ONNX model: {} bytes exceed protobuf's 2 GiB message limit (large "
                            "weights belong in external data)",
                            origin, size));
  }
}

[[noreturn]] void ParseFailed(uint64_t size, const std::string& origin) {
  throw Error(ErrorCode::kInvalidModel,
              fmt::format("{}: not a valid ONNX model: protobuf parsing of {} bytes failed (truncated file or not "
                          "a ModelProto)",
                          origin, size));
}

// An empty or unlucky byte string can parse as a message with nothing in it.
void CheckHasGraph(const onnx::ModelProto& model, const std::string& origin) {
  if (!model.has_graph()) {
    throw Error(ErrorCode::kInvalidModel,
                fmt::format("{}: not a valid ONNX model: it has no graph (empty, truncated or not a ModelProto)",
                            origin));
  }
}

}  // namespace

onnx::ModelProto ParseOnnxModel(const void* data, size_t size, const std::string& origin) {
  CheckMessageSize(size, origin);
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) ParseFailed(size, origin);
  CheckHasGraph(model, origin);
  return model;
}

onnx::ModelProto ParseOnnxFile(const std::filesystem::path& path) {
  // Opened without blocking and refused unless a regular file: a FIFO or a
  // device would block or be read without end.
  const RegularFile file = RegularFile::Open(path.string(), "model file");
  CheckMessageSize(file.size(), path.string());
  // Streamed through a small buffer rather than mapped: the file's pages stay
  // in the page cache, outside this process's resident set, so the parse
  // costs the parsed message only, not the message plus the file.
  google::protobuf::io::FileInputStream stream(file.fd(), kReadBlockBytes);
  onnx::ModelProto model;
  if (!model.ParseFromZeroCopyStream(&stream)) {
    if (stream.GetErrno() != 0) file.Fail(std::strerror(stream.GetErrno()));
    ParseFailed(file.size(), path.string());
  }
  CheckHasGraph(model, path.string());
  return model;
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
    onnx::shape_inference::InferShapes(model, &GuardedSchemaRegistry());
  } catch (const std::exception&) {
    *model.mutable_graph()->mutable_value_info() = value_info;
    *model.mutable_graph()->mutable_output() = outputs;
  }
}

}  // namespace ge::onnx_import
