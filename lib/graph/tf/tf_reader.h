// Reads a TensorFlow model into a GraphDef and its constants: a frozen
// GraphDef (.pb binary, .pbtxt text) or a TensorFlow.js graph model
// (model.json, whose modelTopology is a GraphDef as JSON, plus the weight
// shards its weightsManifest lists, stored as float32/int32/bool or quantized
// to uint8 or float16).
#pragma once

#include <string>
#include <unordered_map>

#include "ge/tensor.h"
#include "graph/tf/proto/tf_graph.pb.h"

namespace ge::tf_import {

struct TfModel {
  ge::tf::GraphDef graph;
  // Constants a TensorFlow.js model keeps in its shards, by Const node name
  // (dequantized to their original dtype). Empty for a GraphDef file, whose
  // Const nodes hold their values.
  std::unordered_map<std::string, Tensor> weights;
  std::string origin;  // the path, for errors
};

// By extension: .json, .pbtxt, anything else a binary GraphDef. Throws
// ge::Error naming the file (and the weight or shard) for what cannot be read.
TfModel ReadTfModel(const std::string& path);

}  // namespace ge::tf_import
