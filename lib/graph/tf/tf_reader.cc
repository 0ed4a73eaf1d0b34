#include "graph/tf/tf_reader.h"

#include <cstring>
#include <filesystem>

#include <fmt/format.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/json_util.h>

#include "ge/error.h"
#include "graph/half_float_bits.h"
#include "graph/proto_text.h"
#include "graph/regular_file.h"

namespace ge::tf_import {
namespace {

namespace fs = std::filesystem;

// model.json files of real models are well under a megabyte of topology.
constexpr uint64_t kMaxJsonBytes = uint64_t{256} << 20;
// Shards are read whole; a model's weights beyond this are not a TensorFlow.js model.
constexpr uint64_t kMaxShardBytes = uint64_t{4} << 30;

[[noreturn]] void Invalid(const std::string& origin, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {}", origin, message));
}

ge::tf::GraphDef ReadBinaryGraph(const std::string& path) {
  const RegularFile file = RegularFile::Open(path, "model file");
  if (file.size() > uint64_t{2} << 30) Invalid(path, "a GraphDef larger than 2 GiB cannot be parsed (protobuf's limit)");
  google::protobuf::io::FileInputStream stream(file.fd());
  ge::tf::GraphDef graph;
  if (!graph.ParseFromZeroCopyStream(&stream)) {
    Invalid(path, fmt::format("not a valid TensorFlow GraphDef ({} bytes; truncated, or not a frozen .pb)", file.size()));
  }
  return graph;
}

ge::tf::GraphDef ReadTextGraph(const std::string& path) {
  ge::tf::GraphDef graph;
  ParseProtoText(ReadRegularFile(path, "model file", kMaxJsonBytes), path, &graph, ErrorCode::kInvalidModel);
  return graph;
}

size_t DtypeBytes(const std::string& dtype) {
  if (dtype == "float32" || dtype == "int32") return 4;
  if (dtype == "bool" || dtype == "uint8") return 1;
  if (dtype == "float16") return 2;
  return 0;
}

DataType StoredDtype(const ge::tf::TfjsWeight& spec, const std::string& origin) {
  if (spec.dtype() == "float32") return DataType::kFloat;
  if (spec.dtype() == "int32") return DataType::kInt32;
  if (spec.dtype() == "bool") return DataType::kBool;
  Invalid(origin, fmt::format("weight '{}' has dtype '{}' (supported: float32, int32, bool)", spec.name(), spec.dtype()));
}

// One weight from its bytes: as stored, or dequantized (uint8: min + q * scale; float16).
Tensor DecodeWeight(const ge::tf::TfjsWeight& spec, const std::byte* bytes, int64_t count, const std::string& origin) {
  std::vector<int64_t> dims(spec.shape().begin(), spec.shape().end());
  const DataType dtype = StoredDtype(spec, origin);
  Tensor tensor(dtype, Shape(std::move(dims)));
  const std::string& quantized = spec.quantization().dtype();
  if (quantized.empty()) {
    std::memcpy(tensor.data(), bytes, tensor.nbytes());
    return tensor;
  }
  if (dtype != DataType::kFloat && quantized != "uint8") {
    Invalid(origin, fmt::format("weight '{}': quantization {} of dtype {} is not supported", spec.name(), quantized,
                                spec.dtype()));
  }
  if (quantized == "uint8") {
    const float scale = spec.quantization().scale();
    const float min = spec.quantization().min();
    for (int64_t i = 0; i < count; ++i) {
      const float value = min + static_cast<float>(static_cast<uint8_t>(bytes[i])) * scale;
      if (dtype == DataType::kFloat) {
        static_cast<float*>(tensor.data())[i] = value;
      } else {
        static_cast<int32_t*>(tensor.data())[i] = static_cast<int32_t>(std::lround(value));
      }
    }
  } else {  // float16
    for (int64_t i = 0; i < count; ++i) {
      uint16_t half = 0;
      std::memcpy(&half, bytes + 2 * i, 2);
      static_cast<float*>(tensor.data())[i] = HalfBitsToFloat(half);
    }
  }
  return tensor;
}

// A shard path must stay inside the model's folder.
fs::path ShardPath(const fs::path& folder, const std::string& shard, const std::string& origin) {
  const fs::path relative(shard);
  if (shard.empty() || relative.is_absolute()) Invalid(origin, fmt::format("weight shard path '{}' must be relative", shard));
  for (const fs::path& part : relative) {
    if (part == "..") Invalid(origin, fmt::format("weight shard path '{}' leaves the model's folder", shard));
  }
  return folder / relative;
}

TfModel ReadTfjs(const std::string& path) {
  const std::string json = ReadRegularFile(path, "model file", kMaxJsonBytes);
  ge::tf::TfjsModel model;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // signature, userDefinedMetadata, ...
  const auto status = google::protobuf::util::JsonStringToMessage(json, &model, options);
  if (!status.ok()) Invalid(path, fmt::format("not a TensorFlow.js graph model: {}", status.ToString()));
  if (!model.has_model_topology()) Invalid(path, "not a TensorFlow.js graph model: it has no modelTopology");
  TfModel result;
  result.origin = path;
  result.graph = std::move(*model.mutable_model_topology());
  const fs::path folder = fs::path(path).parent_path();
  for (const ge::tf::TfjsWeightGroup& group : model.weights_manifest()) {
    std::string bytes;
    for (const std::string& shard : group.paths()) {
      const fs::path file = ShardPath(folder, shard, path);
      bytes += ReadRegularFile(file.string(), "weight shard", kMaxShardBytes);
    }
    size_t offset = 0;
    for (const ge::tf::TfjsWeight& spec : group.weights()) {
      int64_t count = 1;
      for (int64_t d : spec.shape()) {
        if (d < 0 || __builtin_mul_overflow(count, d, &count)) {
          Invalid(path, fmt::format("weight '{}' has an invalid shape", spec.name()));
        }
      }
      const std::string& stored = spec.quantization().dtype().empty() ? spec.dtype() : spec.quantization().dtype();
      const size_t element = DtypeBytes(stored);
      if (element == 0) Invalid(path, fmt::format("weight '{}' is stored as '{}' (supported: float32, int32, bool, "
                                                  "uint8, float16)", spec.name(), stored));
      const auto size = static_cast<uint64_t>(count) * element;
      if (size > bytes.size() - offset) {
        Invalid(path, fmt::format("weight '{}' needs {} bytes at offset {} but its shards hold {} bytes", spec.name(),
                                  size, offset, bytes.size()));
      }
      result.weights[spec.name()] =
          DecodeWeight(spec, reinterpret_cast<const std::byte*>(bytes.data() + offset), count, path);
      offset += size;
    }
  }
  return result;
}

}  // namespace

TfModel ReadTfModel(const std::string& path) {
  const std::string extension = fs::path(path).extension().string();
  if (extension == ".json") return ReadTfjs(path);
  TfModel model;
  model.origin = path;
  model.graph = extension == ".pbtxt" ? ReadTextGraph(path) : ReadBinaryGraph(path);
  return model;
}

}  // namespace ge::tf_import
