// Translators of the ONNX signal ops: HannWindow, HammingWindow,
// BlackmanWindow (not the pooling windows of onnx_window.cc), DFT, STFT,
// MelWeightMatrix.
#include <fmt/core.h>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {

namespace {

// output_datatype (an ONNX TensorProto dtype, float by default) as the ge DataType value of attribute dtype.
int64_t OutputDatatype(const NodeTranslation& node) {
  const int64_t onnx_dtype = node.attrs().Int("output_datatype", onnx::TensorProto::FLOAT);
  const std::optional<DataType> dtype = DataTypeFromOnnx(static_cast<int32_t>(onnx_dtype));
  if (!dtype) {
    node.Fail(ErrorCode::kUnsupported, fmt::format("attribute 'output_datatype' = {} is not supported", onnx_dtype));
  }
  return static_cast<int64_t>(*dtype);
}

}  // namespace

// periodic stays a flag.
void TranslateWindowFunction(NodeTranslation& node) {
  const int64_t dtype = OutputDatatype(node);
  Node* window = node.AddMainNode({node.RequiredInput(0)});
  window->attrs().Set("periodic", node.attrs().Int("periodic", 1) != 0);
  window->attrs().Set("dtype", dtype);
  node.BindOutputs(window);
}

void TranslateMelWeightMatrix(NodeTranslation& node) {
  const int64_t dtype = OutputDatatype(node);
  Node* mel = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.RequiredInput(2),
                                node.RequiredInput(3), node.RequiredInput(4)});
  mel->attrs().Set("dtype", dtype);
  node.BindOutputs(mel);
}

// The int attributes inverse and onesided become flags; dft_length stays an input.
void TranslateDft(NodeTranslation& node) {
  Node* dft = node.AddMainNode({node.RequiredInput(0), node.Input(1)});
  dft->attrs().Set("axis", node.attrs().Int("axis", 1));
  dft->attrs().Set("inverse", node.attrs().Int("inverse", 0) != 0);
  dft->attrs().Set("onesided", node.attrs().Int("onesided", 0) != 0);
  node.BindOutputs(dft);
}

void TranslateStft(NodeTranslation& node) {
  Node* stft = node.AddMainNode({node.RequiredInput(0), node.RequiredInput(1), node.Input(2), node.Input(3)});
  stft->attrs().Set("onesided", node.attrs().Int("onesided", 1) != 0);
  node.BindOutputs(stft);
}

}  // namespace ge::onnx_import
