// Caffe import: a deploy .prototxt (NetParameter, V2 layers) and its trained
// .caffemodel translated into a ge Graph of Ascend-IR ops (docs/caffe-import.md).
#pragma once

#include <memory>
#include <string>

#include "ge/export.h"
#include "ge/graph.h"

namespace ge {

// Reads the network from `prototxt` and the layers' weights (blobs) from
// `caffemodel`, matched by layer name; an empty `caffemodel` takes the blobs
// the prototxt holds. Layers only for the TRAIN phase are left out. Throws
// ge::Error naming the file and layer: kUnsupported listing every layer type
// ge cannot translate with its count, kInvalidModel for a malformed net.
GE_API std::unique_ptr<Graph> ImportCaffeFiles(const std::string& prototxt, const std::string& caffemodel = "");

}  // namespace ge
