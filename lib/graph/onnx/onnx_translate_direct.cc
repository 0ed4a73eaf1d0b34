#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {

void TranslateDirect(NodeTranslation& node) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.Input(i));
  node.BindOutputs(node.AddMainNode(inputs, node.num_outputs()));
}

}  // namespace ge::onnx_import
