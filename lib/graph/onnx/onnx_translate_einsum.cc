// Einsum (opset 12) -> Einsum with the same inputs and equation.
#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {

void TranslateEinsum(NodeTranslation& node) {
  std::vector<Value*> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(node.RequiredInput(i));
  Node* einsum = node.AddMainNode(inputs);
  einsum->attrs().Set("equation", node.attrs().String("equation", ""));
  node.BindOutputs(einsum);
}

}  // namespace ge::onnx_import
