// The translators the op table (onnx_op_registry.cc) refers to, by op family.
// Each reads one ONNX node through NodeTranslation and adds the ge nodes that
// compute the same outputs, following docs/op-set.md.
#pragma once

#include "graph/onnx/onnx_translation_context.h"

namespace ge::onnx_import {

// onnx_translate_direct.cc: same inputs, same outputs, no attributes (Relu, Add, MatMul, Identity, ...).
void TranslateDirect(NodeTranslation& node);

// onnx_translate_legacy_broadcast.cc: binary ops before opset 7 (attributes broadcast, axis).
void TranslateLegacyBroadcastBinary(NodeTranslation& node);
void TranslateLegacyPRelu(NodeTranslation& node);  // a 1-D slope is per channel

// onnx_translate_conv.cc
void TranslateConv(NodeTranslation& node);
void TranslateConvTranspose(NodeTranslation& node);

// onnx_translate_pool.cc
void TranslateMaxPool(NodeTranslation& node);
void TranslateAveragePool(NodeTranslation& node);
void TranslateGlobalPool(NodeTranslation& node);
void TranslateMaxUnpool(NodeTranslation& node);

// onnx_translate_math.cc
void TranslateGemm(NodeTranslation& node);
void TranslateClipWithAttrs(NodeTranslation& node);
void TranslateClipWithInputs(NodeTranslation& node);
void TranslateVariadic(NodeTranslation& node);
void TranslatePow(NodeTranslation& node);
void TranslateMod(NodeTranslation& node);
void TranslateBitShift(NodeTranslation& node);
void TranslateCastLike(NodeTranslation& node);
void TranslateIsInf(NodeTranslation& node);

// onnx_translate_activation.cc: LeakyRelu, Elu, Selu, Celu, ThresholdedRelu, HardSigmoid, Shrink.
void TranslateActivation(NodeTranslation& node);

// onnx_translate_norm.cc
void TranslateBatchNormalization(NodeTranslation& node);
void TranslateLayerNormalization(NodeTranslation& node);
void TranslateInstanceNormalization(NodeTranslation& node);
void TranslateLrn(NodeTranslation& node);
void TranslateMeanVarianceNormalization(NodeTranslation& node);
void TranslateSoftmax2D(NodeTranslation& node);
void TranslateSoftmaxAxis(NodeTranslation& node);

// onnx_translate_reduce.cc
void TranslateReduceWithAxesAttr(NodeTranslation& node);
void TranslateReduceWithAxesInput(NodeTranslation& node);

// onnx_translate_einsum.cc
void TranslateEinsum(NodeTranslation& node);

// onnx_translate_resize.cc
void TranslateResize(NodeTranslation& node);
void TranslateResizeWithScalesInput(NodeTranslation& node);
void TranslateUpsampleWithScalesAttr(NodeTranslation& node);
void TranslateUpsampleWithHeightWidth(NodeTranslation& node);

// onnx_translate_shape.cc
void TranslateFlatten(NodeTranslation& node);
void TranslateReshape(NodeTranslation& node);
void TranslateReshapeWithAttr(NodeTranslation& node);
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

// onnx_translate_loss.cc
void TranslateNegativeLogLikelihoodLoss(NodeTranslation& node);
void TranslateSoftmaxCrossEntropyLoss(NodeTranslation& node);

// onnx_translate_quant.cc
void TranslateLinearQuantization(NodeTranslation& node);
void TranslateConvInteger(NodeTranslation& node);
void TranslateQLinearConv(NodeTranslation& node);

// onnx_translate_rnn.cc: RNN, GRU, LSTM
void TranslateRecurrent(NodeTranslation& node);

// onnx_translate_generator.cc
void TranslatePadWithAttrs(NodeTranslation& node);
void TranslatePadWithInputs(NodeTranslation& node);
void TranslateConstantOfShape(NodeTranslation& node);
void TranslateOneHot(NodeTranslation& node);
void TranslateEyeLike(NodeTranslation& node);
void TranslateTrilu(NodeTranslation& node);
void TranslateDepthToSpace(NodeTranslation& node);
void TranslateSpaceToDepth(NodeTranslation& node);

// onnx_translate_index.cc
void TranslateGatherElements(NodeTranslation& node);
void TranslateGatherNd(NodeTranslation& node);
void TranslateScatterElements(NodeTranslation& node);
void TranslateScatterNd(NodeTranslation& node);
void TranslateTopKWithAttr(NodeTranslation& node);
void TranslateTopKWithInput(NodeTranslation& node);
void TranslateArgReduce(NodeTranslation& node);
void TranslateCumSum(NodeTranslation& node);
void TranslateCompress(NodeTranslation& node);
void TranslateReverseSequence(NodeTranslation& node);
void TranslateUnique(NodeTranslation& node);

// onnx_translate_detection.cc
void TranslateNonMaxSuppression(NodeTranslation& node);
void TranslateRoiAlign(NodeTranslation& node);
void TranslateGridSample(NodeTranslation& node);

// onnx_translate_signal.cc: HannWindow, HammingWindow, BlackmanWindow; DFT, STFT; MelWeightMatrix
void TranslateWindowFunction(NodeTranslation& node);
void TranslateDft(NodeTranslation& node);
void TranslateStft(NodeTranslation& node);
void TranslateMelWeightMatrix(NodeTranslation& node);

// onnx_translate_control_flow.cc: subgraphs become graph attributes
void TranslateIf(NodeTranslation& node);
// Sequences and optionals (onnx_translate_sequence.cc).
void TranslateSequenceElement(NodeTranslation& node);  // SequenceAt, ConcatFromSequence, OptionalGetElement
void TranslateSequenceEmpty(NodeTranslation& node);
void TranslateSplitToSequence(NodeTranslation& node);
void TranslateOptional(NodeTranslation& node);
void TranslateSequenceMap(NodeTranslation& node);
void TranslateLoop(NodeTranslation& node);
void TranslateScan(NodeTranslation& node);

}  // namespace ge::onnx_import
