// The translators the op table (onnx_op_registry.cc) refers to, by op family.
// Each reads one ONNX node through NodeTranslation and adds the ge nodes that
// compute the same outputs, following docs/op-set.md.
#pragma once

#include "graph/onnx/onnx_translation_context.h"

namespace ge::onnx_import {

// onnx_translate_direct.cc: same inputs, same outputs, no attributes (Relu, Add, MatMul, Identity, ...).
void TranslateDirect(NodeTranslation& node);

// onnx_translate_conv.cc
void TranslateConv(NodeTranslation& node);
void TranslateConvTranspose(NodeTranslation& node);

// onnx_translate_pool.cc
void TranslateMaxPool(NodeTranslation& node);
void TranslateAveragePool(NodeTranslation& node);
void TranslateGlobalPool(NodeTranslation& node);

// onnx_translate_math.cc
void TranslateGemm(NodeTranslation& node);
void TranslateClipWithAttrs(NodeTranslation& node);
void TranslateClipWithInputs(NodeTranslation& node);

// onnx_translate_norm.cc
void TranslateBatchNormalization(NodeTranslation& node);
void TranslateLayerNormalization(NodeTranslation& node);
void TranslateSoftmax2D(NodeTranslation& node);
void TranslateSoftmaxAxis(NodeTranslation& node);

// onnx_translate_reduce.cc
void TranslateReduceWithAxesAttr(NodeTranslation& node);
void TranslateReduceWithAxesInput(NodeTranslation& node);

// onnx_translate_shape.cc
void TranslateFlatten(NodeTranslation& node);
void TranslateReshape(NodeTranslation& node);
void TranslateTranspose(NodeTranslation& node);
void TranslateConcat(NodeTranslation& node);
void TranslateSplitWithAttr(NodeTranslation& node);
void TranslateSplitWithInput(NodeTranslation& node);
void TranslateSliceWithAttrs(NodeTranslation& node);
void TranslateSliceWithInputs(NodeTranslation& node);
void TranslateGather(NodeTranslation& node);
void TranslateShape(NodeTranslation& node);
void TranslateUnsqueezeWithAttr(NodeTranslation& node);
void TranslateUnsqueezeWithInput(NodeTranslation& node);
void TranslateSqueezeWithAttr(NodeTranslation& node);
void TranslateSqueezeWithInput(NodeTranslation& node);

// onnx_translate_tensor.cc
void TranslateConstant(NodeTranslation& node);
void TranslateCast(NodeTranslation& node);
void TranslateDropout(NodeTranslation& node);

}  // namespace ge::onnx_import
