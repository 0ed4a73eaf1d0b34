// Writing Caffe nets in tests: layers, blobs, and the .prototxt +
// .caffemodel pair as Caffe keeps it.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <google/protobuf/text_format.h>

#include "graph/caffe/proto/caffe_net.pb.h"
#include "test_support.h"

namespace ge::test::caffe_writer {

inline void SetBlob(caffe::LayerParameter& layer, const std::vector<int64_t>& shape, const std::vector<float>& values) {
  caffe::BlobProto& blob = *layer.add_blobs();
  for (int64_t d : shape) blob.mutable_shape()->add_dim(d);
  for (float v : values) blob.add_data(v);
}

inline caffe::LayerParameter& Layer(caffe::NetParameter& net, const std::string& name, const std::string& type,
                             const std::vector<std::string>& bottoms, const std::string& top) {
  caffe::LayerParameter& layer = *net.add_layer();
  layer.set_name(name);
  layer.set_type(type);
  for (const std::string& b : bottoms) layer.add_bottom(b);
  layer.add_top(top);
  return layer;
}

// Writes the net as Caffe keeps it: the structure as text, the weights (the
// layers with blobs) as a binary .caffemodel. Returns the two paths.
inline std::pair<std::string, std::string> Save(const caffe::NetParameter& net, const std::string& name) {
  const std::filesystem::path dir = TempDir(name);
  caffe::NetParameter structure = net, weights;
  for (caffe::LayerParameter& layer : *structure.mutable_layer()) {
    if (layer.blobs_size() == 0) continue;
    caffe::LayerParameter& trained = *weights.add_layer();
    trained.set_name(layer.name());
    *trained.mutable_blobs() = layer.blobs();
    layer.clear_blobs();
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(structure, &text);
  std::ofstream(dir / "deploy.prototxt") << text;
  std::ofstream(dir / "trained.caffemodel", std::ios::binary) << weights.SerializeAsString();
  return {(dir / "deploy.prototxt").string(), (dir / "trained.caffemodel").string()};
}

inline void AddInput(caffe::NetParameter& net, const std::vector<int64_t>& shape) {
  caffe::LayerParameter& input = *net.add_layer();
  input.set_name("data");
  input.set_type("Input");
  input.add_top("data");
  caffe::BlobShape& blob_shape = *input.mutable_input_param()->add_shape();
  for (int64_t d : shape) blob_shape.add_dim(d);
}

}  // namespace ge::test::caffe_writer
