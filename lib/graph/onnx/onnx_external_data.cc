#include "graph/onnx/onnx_external_data.h"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <optional>

#include "ge/error.h"
#include "graph/escape_for_message.h"
#include "graph/regular_file.h"

namespace ge::onnx_import {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;

// Messages quote locations and names from the model file: escaped so that they stay one line.
[[noreturn]] void Fail(ErrorCode code, const std::string& message) { throw Error(code, EscapeForMessage(message)); }

struct ExternalDataRef {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;  // absent: up to the end of the file
};

uint64_t ParseByteCount(const std::string& text, const std::string& key, const std::string& what) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data key '{}' is '{}'; expected a non-negative integer", what, key, text));
  }
  return value;
}

ExternalDataRef ParseExternalDataRef(const TensorProto& tensor, const std::string& what) {
  ExternalDataRef ref;
  bool has_location = false;
  for (const auto& entry : tensor.external_data()) {
    if (entry.key() == "location") {
      ref.location = entry.value();
      has_location = true;
    } else if (entry.key() == "offset") {
      ref.offset = ParseByteCount(entry.value(), entry.key(), what);
    } else if (entry.key() == "length") {
      ref.length = ParseByteCount(entry.value(), entry.key(), what);
    }
    // "checksum" and unknown keys carry nothing needed to read the bytes.
  }
  if (!has_location || ref.location.empty()) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: data_location is EXTERNAL but the external_data key 'location' is missing", what));
  }
  return ref;
}

// True when `path` equals `dir` or lies below it; both must be normalized.
bool IsWithin(const fs::path& dir, const fs::path& path) {
  auto [dir_end, path_end] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
  return dir_end == dir.end();
}

fs::path ResolveLocation(const fs::path& model_dir, const std::string& location, const std::string& what) {
  const fs::path relative(location);
  if (relative.has_root_name() || relative.has_root_directory()) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data location '{}' is an absolute path; only relative paths inside the "
                     "model's folder '{}' are allowed",
                     what, location, model_dir.string()));
  }
  std::error_code ec;
  fs::path dir = fs::absolute(model_dir, ec);
  if (!ec) dir = fs::weakly_canonical(dir, ec);
  if (ec) {
    Fail(ErrorCode::kIoError,
         fmt::format("{}: cannot resolve the model's folder '{}': {}", what, model_dir.string(), ec.message()));
  }
  const fs::path lexical = (dir / relative).lexically_normal();
  if (!IsWithin(dir, lexical)) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data location '{}' escapes the model's folder '{}'", what, location, dir.string()));
  }
  // Symbolic links may still lead elsewhere: compare the fully resolved path too.
  const fs::path real = fs::weakly_canonical(lexical, ec);
  if (ec || !IsWithin(dir, real)) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data location '{}' resolves to '{}', outside the model's folder '{}'", what,
                     location, ec ? lexical.string() : real.string(), dir.string()));
  }
  if (!fs::exists(real, ec)) {
    Fail(ErrorCode::kNotFound,
         fmt::format("{}: external data file '{}' (location '{}') does not exist", what, real.string(), location));
  }
  if (!fs::is_regular_file(real, ec)) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data location '{}' is not a regular file", what, location));
  }
  return real;
}

std::string ReadRange(const fs::path& path, const ExternalDataRef& ref, const std::string& what) {
  const RegularFile file = RegularFile::Open(path.string(), fmt::format("the external data of {}", what));
  const uint64_t length = ref.length.value_or(ref.offset <= file.size() ? file.size() - ref.offset : 0);
  if (ref.offset > file.size() || length > file.size() - ref.offset) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: external data range offset {} length {} lies beyond the end of '{}' ({} bytes)", what,
                     ref.offset, length, path.string(), file.size()));
  }
  std::string bytes(length, '\0');
  file.ReadAt(ref.offset, bytes.data(), length);
  return bytes;
}

void LoadTensor(TensorProto& tensor, const fs::path& model_dir, const std::string& what) {
  if (tensor.data_location() != TensorProto::EXTERNAL) return;
  const ExternalDataRef ref = ParseExternalDataRef(tensor, what);
  if (model_dir.empty()) {
    Fail(ErrorCode::kInvalidModel,
         fmt::format("{}: its data is in the external file '{}', but the model was given as a buffer without a "
                     "base directory; pass base_dir to ImportOnnxBuffer or import the file with ImportOnnxFile",
                     what, ref.location));
  }
  const fs::path file = ResolveLocation(model_dir, ref.location, what);
  tensor.set_raw_data(ReadRange(file, ref, what));
  tensor.clear_external_data();
  tensor.set_data_location(TensorProto::DEFAULT);
}

}  // namespace

void LoadExternalData(onnx::ModelProto& model, const fs::path& model_dir, const std::string& origin) {
  onnx::GraphProto& graph = *model.mutable_graph();
  for (TensorProto& initializer : *graph.mutable_initializer()) {
    LoadTensor(initializer, model_dir, fmt::format("{}: initializer '{}'", origin, initializer.name()));
  }
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attr : *node.mutable_attribute()) {
      const std::string what = fmt::format("{}: node '{}' attribute '{}'", origin, node.name(), attr.name());
      if (attr.has_t()) LoadTensor(*attr.mutable_t(), model_dir, what);
      for (TensorProto& tensor : *attr.mutable_tensors()) LoadTensor(tensor, model_dir, what);
    }
  }
}

}  // namespace ge::onnx_import
