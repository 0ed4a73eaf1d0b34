#include "graph/onnx/onnx_op_registry.h"

#include <algorithm>
#include <array>

#include "graph/onnx/onnx_translators.h"

namespace ge::onnx_import {
namespace {

constexpr int kMin = kMinOnnxOpset;
constexpr int kMax = kMaxOnnxOpset;

// Sorted by ONNX op type, then opset. An op whose attributes turned into
// inputs at some opset has one entry per form.
constexpr std::array kOnnxOps = {
    OnnxOpEntry{"Abs", kMin, kMax, "Abs", "", TranslateDirect},
    OnnxOpEntry{"Add", kMin, kMax, "Add", "", TranslateDirect},
    OnnxOpEntry{"AveragePool", kMin, kMax, "AvgPoolV2",
                "2-D only; auto_pad resolved to pads (SAME needs static spatial dims); exclusive = !count_include_pad",
                TranslateAveragePool},
    OnnxOpEntry{"BatchNormalization", kMin, kMax, "BatchNorm",
                "inference only: training_mode and the statistics outputs are not supported", TranslateBatchNormalization},
    OnnxOpEntry{"Cast", kMin, kMax, "Cast", "dst_type = ge DataType value", TranslateCast},
    OnnxOpEntry{"Clip", kMin, 10, "ClipByValue", "attributes min/max become Const scalars", TranslateClipWithAttrs},
    OnnxOpEntry{"Clip", 11, kMax, "ClipByValue", "a missing bound becomes the dtype's lowest/largest value",
                TranslateClipWithInputs},
    OnnxOpEntry{"Concat", kMin, kMax, "ConcatD", "", TranslateConcat},
    OnnxOpEntry{"Constant", kMin, kMax, "Const", "value, value_float(s), value_int(s); no strings or sparse tensors",
                TranslateConstant},
    OnnxOpEntry{"Conv", kMin, kMax, "Conv2D", "2-D only; auto_pad resolved to pads (SAME needs static spatial dims)",
                TranslateConv},
    OnnxOpEntry{"ConvTranspose", kMin, kMax, "Conv2DTranspose",
                "2-D only; static N, H, W; output shape (output_shape, output_padding, auto_pad) becomes the "
                "input_size Const",
                TranslateConvTranspose},
    OnnxOpEntry{"Div", kMin, kMax, "Div", "", TranslateDirect},
    OnnxOpEntry{"Dropout", kMin, kMax, "Identity", "inference only; no mask output", TranslateDropout},
    OnnxOpEntry{"Erf", 9, kMax, "Erf", "", TranslateDirect},
    OnnxOpEntry{"Exp", kMin, kMax, "Exp", "", TranslateDirect},
    OnnxOpEntry{"Flatten", kMin, kMax, "Flatten", "", TranslateFlatten},
    OnnxOpEntry{"Gather", kMin, kMax, "GatherV2D", "", TranslateGather},
    OnnxOpEntry{"Gemm", kMin, kMax, "MatMulV2",
                "C of shape [N] or [1,N] with alpha = beta = 1 is the bias; otherwise Mul (alpha, beta) and Add nodes",
                TranslateGemm},
    OnnxOpEntry{"GlobalAveragePool", kMin, kMax, "ReduceMeanD", "mean over the spatial axes, keep_dims",
                TranslateGlobalPool},
    OnnxOpEntry{"GlobalMaxPool", kMin, kMax, "ReduceMaxD", "max over the spatial axes, keep_dims", TranslateGlobalPool},
    OnnxOpEntry{"Identity", kMin, kMax, "Identity", "tensors only", TranslateDirect},
    OnnxOpEntry{"LayerNormalization", 17, kMax, "LayerNorm",
                "begin_norm_axis = begin_params_axis = axis; only output Y; missing B becomes a zero Const",
                TranslateLayerNormalization},
    OnnxOpEntry{"Log", kMin, kMax, "Log", "", TranslateDirect},
    OnnxOpEntry{"MatMul", kMin, kMax, "BatchMatMulV2", "", TranslateDirect},
    OnnxOpEntry{"MaxPool", kMin, kMax, "MaxPoolV3",
                "2-D only; auto_pad resolved to pads; no Indices output; storage_order ignored", TranslateMaxPool},
    OnnxOpEntry{"Mul", kMin, kMax, "Mul", "", TranslateDirect},
    OnnxOpEntry{"Neg", kMin, kMax, "Neg", "", TranslateDirect},
    OnnxOpEntry{"Pow", kMin, kMax, "Pow", "", TranslateDirect},
    OnnxOpEntry{"Reciprocal", kMin, kMax, "Reciprocal", "", TranslateDirect},
    OnnxOpEntry{"ReduceMax", kMin, kMax, "ReduceMaxD", "", TranslateReduceWithAxesAttr},
    OnnxOpEntry{"ReduceMean", kMin, kMax, "ReduceMeanD", "", TranslateReduceWithAxesAttr},
    OnnxOpEntry{"ReduceMin", kMin, kMax, "ReduceMinD", "", TranslateReduceWithAxesAttr},
    OnnxOpEntry{"ReduceProd", kMin, kMax, "ReduceProdD", "", TranslateReduceWithAxesAttr},
    OnnxOpEntry{"ReduceSum", kMin, 12, "ReduceSumD", "", TranslateReduceWithAxesAttr},
    OnnxOpEntry{"ReduceSum", 13, kMax, "ReduceSumD",
                "axes input must be constant; noop_with_empty_axes gives Identity", TranslateReduceWithAxesInput},
    OnnxOpEntry{"Relu", kMin, kMax, "Relu", "", TranslateDirect},
    OnnxOpEntry{"Reshape", kMin, kMax, "Reshape", "shape stays an input", TranslateReshape},
    OnnxOpEntry{"Shape", kMin, kMax, "Shape", "start/end (opset 15) add a StridedSliceV2", TranslateShape},
    OnnxOpEntry{"Sigmoid", kMin, kMax, "Sigmoid", "", TranslateDirect},
    OnnxOpEntry{"Slice", kMin, 9, "StridedSliceV2", "attributes starts/ends/axes become Const inputs",
                TranslateSliceWithAttrs},
    OnnxOpEntry{"Slice", 10, kMax, "StridedSliceV2", "", TranslateSliceWithInputs},
    OnnxOpEntry{"Softmax", kMin, 12, "SoftmaxV2",
                "2-D coercion at axis: Flatten, SoftmaxV2 and Reshape unless axis is the last dim", TranslateSoftmax2D},
    OnnxOpEntry{"Softmax", 13, kMax, "SoftmaxV2", "axes = {axis}", TranslateSoftmaxAxis},
    OnnxOpEntry{"Split", kMin, 12, "SplitVD", "equal split needs the static size of the axis", TranslateSplitWithAttr},
    OnnxOpEntry{"Split", 13, kMax, "SplitVD", "split input must be constant; equal split needs the static size",
                TranslateSplitWithInput},
    OnnxOpEntry{"Sqrt", kMin, kMax, "Sqrt", "", TranslateDirect},
    OnnxOpEntry{"Squeeze", kMin, 12, "Squeeze", "", TranslateSqueezeWithAttr},
    OnnxOpEntry{"Squeeze", 13, kMax, "Squeeze", "axes input must be constant", TranslateSqueezeWithInput},
    OnnxOpEntry{"Sub", kMin, kMax, "Sub", "", TranslateDirect},
    OnnxOpEntry{"Tanh", kMin, kMax, "Tanh", "", TranslateDirect},
    OnnxOpEntry{"Transpose", kMin, kMax, "TransposeD", "default perm (reversed) needs the rank", TranslateTranspose},
    OnnxOpEntry{"Unsqueeze", kMin, 12, "Unsqueeze", "", TranslateUnsqueezeWithAttr},
    OnnxOpEntry{"Unsqueeze", 13, kMax, "Unsqueeze", "axes input must be constant", TranslateUnsqueezeWithInput},
};

}  // namespace

std::span<const OnnxOpEntry> OnnxOpTable() { return kOnnxOps; }

const OnnxOpEntry* FindOnnxOp(std::string_view onnx_op, int opset) {
  auto it = std::find_if(kOnnxOps.begin(), kOnnxOps.end(), [&](const OnnxOpEntry& entry) {
    return entry.onnx_op == onnx_op && entry.first_opset <= opset && opset <= entry.last_opset;
  });
  return it == kOnnxOps.end() ? nullptr : &*it;
}

}  // namespace ge::onnx_import
