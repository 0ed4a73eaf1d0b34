// TensorFlow import: a frozen GraphDef (.pb, .pbtxt) or a TensorFlow.js graph
// model (model.json and its weight shards) translated into a ge Graph of
// Ascend-IR ops (docs/tensorflow-import.md).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ge/export.h"
#include "ge/graph.h"

namespace ge {

struct GE_API TfImportOptions {
  // Placeholder shapes replacing the model's, by name (ATC's
  // --input_shape "images:1,224,224,3"): for dims the model leaves unknown.
  std::map<std::string, Shape> input_shapes;
  // The graph outputs, as "node" or "node:index" (ATC's --out_nodes); empty:
  // the outputs of every node that nothing reads.
  std::vector<std::string> output_nodes;
};

// Reads and translates the model; the file's extension picks the format
// (.json: TensorFlow.js, .pbtxt: text GraphDef, else binary GraphDef).
// Throws ge::Error naming the file: kUnsupported listing every op type ge
// cannot translate with its count, kInvalidModel naming the node.
GE_API std::unique_ptr<Graph> ImportTensorFlowFile(const std::string& path, const TfImportOptions& options = {});

}  // namespace ge
