// tfjs_to_pb MODEL.json OUT.pb: writes a TensorFlow.js graph model as a
// frozen GraphDef, its shards' weights in the Const nodes (docs/tensorflow-import.md).
#include <cstdio>
#include <fstream>

#include "ge/error.h"
#include "graph/tf/tf_freeze.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: tfjs_to_pb MODEL.json OUT.pb\n");
    return 2;
  }
  try {
    const ge::tf::GraphDef graph = ge::tf_import::FreezeWeights(ge::tf_import::ReadTfModel(argv[1]));
    std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
    if (!out || !graph.SerializeToOstream(&out)) {
      std::fprintf(stderr, "tfjs_to_pb: cannot write %s\n", argv[2]);
      return 1;
    }
  } catch (const ge::Error& e) {
    std::fprintf(stderr, "tfjs_to_pb: %s\n", e.what());
    return 1;
  }
  return 0;
}
