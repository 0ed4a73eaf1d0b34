// Drives the Caffe import: parses the .prototxt (text NetParameter) and the
// .caffemodel (binary NetParameter), gives each layer the blobs of the
// trained layer of its name, refuses a net with layer types ge cannot
// translate (all listed at once), adds the net's inputs, translates the
// layers in order (caffe_layers.h), rebinding a blob's name when a layer
// writes it in place, and gives out the blobs no later layer reads.
#include "ge/caffe_importer.h"

#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "ge/builder.h"
#include "ge/error.h"
#include "graph/caffe/caffe_layers.h"
#include "graph/proto_text.h"
#include "graph/regular_file.h"

namespace ge {
namespace {

using caffe_import::CaffeLayerContext;

constexpr uint64_t kMaxPrototxtBytes = uint64_t{64} << 20;

[[noreturn]] void Invalid(const std::string& origin, const std::string& message) {
  throw Error(ErrorCode::kInvalidModel, fmt::format("{}: {}", origin, message));
}

ge::caffe::NetParameter ReadPrototxt(const std::string& path) {
  ge::caffe::NetParameter net;
  ParseProtoText(ReadRegularFile(path, "Caffe prototxt", kMaxPrototxtBytes), path, &net, ErrorCode::kInvalidModel);
  return net;
}

ge::caffe::NetParameter ReadCaffemodel(const std::string& path) {
  const RegularFile file = RegularFile::Open(path, "Caffe model");
  if (file.size() > uint64_t{2} << 30) Invalid(path, "a .caffemodel larger than 2 GiB cannot be parsed");
  google::protobuf::io::FileInputStream stream(file.fd());
  ge::caffe::NetParameter net;
  if (!net.ParseFromZeroCopyStream(&stream)) {
    Invalid(path, fmt::format("not a valid .caffemodel ({} bytes; truncated, or not a binary NetParameter)", file.size()));
  }
  return net;
}

bool OnlyForTraining(const ge::caffe::LayerParameter& layer) {
  if (layer.has_phase()) return layer.phase() == ge::caffe::TRAIN;
  for (const auto& rule : layer.include()) {
    if (rule.has_phase() && rule.phase() == ge::caffe::TRAIN) return true;
  }
  for (const auto& rule : layer.exclude()) {
    if (rule.has_phase() && rule.phase() == ge::caffe::TEST) return true;
  }
  return false;
}

Shape ShapeOf(const ge::caffe::BlobShape& shape) {
  return Shape(std::vector<int64_t>(shape.dim().begin(), shape.dim().end()));
}

}  // namespace

std::unique_ptr<Graph> ImportCaffeFiles(const std::string& prototxt, const std::string& caffemodel) {
  ge::caffe::NetParameter net = ReadPrototxt(prototxt);
  if (net.layers_size() > 0) {
    throw Error(ErrorCode::kUnsupported, fmt::format("{}: the net uses V1 layers ('layers'), which ge does not read; "
                                                     "upgrade it to V2 ('layer') with Caffe's upgrade_net_proto_text",
                                                     prototxt));
  }
  if (!caffemodel.empty()) {
    ge::caffe::NetParameter trained = ReadCaffemodel(caffemodel);
    std::unordered_map<std::string, const ge::caffe::LayerParameter*> by_name;
    for (const auto& layer : trained.layer()) by_name.emplace(layer.name(), &layer);
    for (auto& layer : *net.mutable_layer()) {
      if (auto found = by_name.find(layer.name()); found != by_name.end() && found->second->blobs_size() > 0) {
        *layer.mutable_blobs() = found->second->blobs();
      }
    }
  }
  // Every layer type first, so that one error lists all that are missing.
  std::map<std::string, int> missing;
  for (const auto& layer : net.layer()) {
    if (!OnlyForTraining(layer) && layer.type() != "Input" && !caffe_import::CaffeTranslators().count(layer.type())) {
      ++missing[layer.type()];
    }
  }
  if (!missing.empty()) {
    std::vector<std::string> listed;
    for (const auto& [type, count] : missing) listed.push_back(fmt::format("{} ({})", type, count));
    throw Error(ErrorCode::kUnsupported, fmt::format("{}: {} layer type{} not supported by ge's Caffe import: {}",
                                                     prototxt, missing.size(), missing.size() == 1 ? " is" : "s are",
                                                     fmt::join(listed, ", ")));
  }

  GraphBuilder b(net.name().empty() ? "caffe" : net.name());
  std::unordered_map<std::string, Value*> blobs;  // blob name -> its current value
  std::vector<std::string> order;                 // blob names in the order they were last written
  std::unordered_set<const Value*> read;
  auto write = [&](const std::string& name, Value* value) {
    blobs[name] = value;
    std::erase(order, name);
    order.push_back(name);
  };
  // Net-level inputs: input + input_shape, or input + input_dim (4 per input).
  for (int i = 0; i < net.input_size(); ++i) {
    Shape shape;
    if (i < net.input_shape_size()) {
      shape = ShapeOf(net.input_shape(i));
    } else if (net.input_dim_size() >= 4 * (i + 1)) {
      shape = Shape(std::vector<int64_t>(net.input_dim().begin() + 4 * i, net.input_dim().begin() + 4 * (i + 1)));
    } else {
      Invalid(prototxt, fmt::format("input '{}' has no shape (input_shape or input_dim)", net.input(i)));
    }
    write(net.input(i), b.Input(net.input(i), DataType::kFloat, shape));
  }
  for (const ge::caffe::LayerParameter& layer : net.layer()) {
    if (OnlyForTraining(layer)) continue;
    if (layer.type() == "Input") {
      for (int i = 0; i < layer.top_size(); ++i) {
        const auto& shapes = layer.input_param().shape();
        if (shapes.empty()) Invalid(prototxt, fmt::format("Input layer '{}' has no shape", layer.name()));
        write(layer.top(i), b.Input(layer.top(i), DataType::kFloat, ShapeOf(shapes[std::min(i, shapes.size() - 1)])));
      }
      continue;
    }
    std::vector<Value*> bottoms;
    for (const std::string& name : layer.bottom()) {
      const auto found = blobs.find(name);
      if (found == blobs.end()) {
        Invalid(prototxt, fmt::format("layer '{}' ({}) reads blob '{}', which no earlier layer writes", layer.name(),
                                      layer.type(), name));
      }
      read.insert(found->second);
      bottoms.push_back(found->second);
    }
    CaffeLayerContext ctx(layer, b, std::move(bottoms), prototxt);
    const std::vector<Value*> tops = caffe_import::CaffeTranslators().find(layer.type())->second(ctx);
    if (static_cast<int>(tops.size()) < layer.top_size()) ctx.Fail(fmt::format("has {} tops; ge gives {}", layer.top_size(), tops.size()));
    for (int i = 0; i < layer.top_size(); ++i) write(layer.top(i), tops[i]);
  }
  std::vector<Value*> outputs;
  for (const std::string& name : order) {
    Value* value = blobs.at(name);
    if (read.count(value) || value->producer()->op_type() == "Data") continue;
    value->set_name(name);
    outputs.push_back(value);
  }
  if (outputs.empty()) Invalid(prototxt, "the net computes nothing");
  b.Outputs(outputs);
  return b.Build();
}

}  // namespace ge
