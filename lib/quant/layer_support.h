// Which layers post-training quantization may rewrite, and under which
// constraints: the support table per framework (as the Ascend documentation
// states it) and the planner that applies the ONNX rules and the user's
// config to a float graph, deciding every candidate layer.
#pragma once

#include <string>
#include <vector>

#include "ge/graph.h"
#include "quant/quant_config.h"
#include "quant/quant_types.h"

namespace ge::quant {

// One row of the full-quantization support table.
struct LayerSupportRow {
  std::string framework;     // "ONNX", "TensorFlow", "Caffe"
  std::string framework_op;  // the framework's op name ("Conv", "Gemm", ...)
  std::string ascend_ops;    // the Ascend IR op(s) it maps to ("Conv2D, Conv3D")
  std::string constraint;    // "-" when there is none
};

// One row of the weight-only support table.
struct WeightOnlySupportRow {
  std::string ascend_op;     // "MatMulV2", "BatchMatMulV2", "FFN"
  std::string channel_wise;  // ARQ channel_wise values supported
  std::string asymmetric;    // ARQ asymmetric values supported
  std::string constraint;
};

const std::vector<LayerSupportRow>& LayerSupportTable();
const std::vector<WeightOnlySupportRow>& WeightOnlySupportTable();

enum class QuantLayerKind {
  kWeighted,         // activation x and a constant weight: AscendQuant -> int op -> AscendDequant
  kTwoTensorMatMul,  // BatchMatMulV2 of two variable tensors, both quantized INT8 symmetric
  kTensorOnly,       // pooling, Add: AscendQuant -> op (or nothing) -> AscendAntiQuant
  kWeightOnly,       // weight_compress_only: int8 weights, float activations
};

// The planner's decision for one candidate layer.
struct QuantLayer {
  std::string name;                     // node name
  std::string op_type;                  // Ascend IR op type
  std::vector<std::string> type_names;  // {Ascend op, ONNX op} for config matching
  QuantLayerKind kind = QuantLayerKind::kWeighted;
  bool quantize = false;
  std::string reason;  // the rule or config entry that skipped it; empty when quantized
  LayerQuantConfig config;
  // Values to calibrate: x (and x2 for the two-tensor matmul; for Add the one quantized input).
  std::vector<std::string> activation_values;
  int weight_input = -1;            // input index of the constant weight, -1 for none
  int64_t weight_channel_axis = 0;  // the weight's output-channel axis (ARQ's channel_axis)

  // "INT8", "INT16", "weight-only INT8" or "skipped: <reason>".
  std::string Decision() const;
};

// Decides every candidate layer of an optimized, shape-inferred float graph
// (Conv2D, Conv3D, MatMulV2, Conv2DTranspose, BatchMatMulV2, AvgPoolV2,
// MaxPool/MaxPoolV3, Add, FFN), in topological order. Skipped candidates are
// listed too, with the reason.
std::vector<QuantLayer> PlanQuantLayers(const Graph& graph, const QuantConfig& config);

}  // namespace ge::quant
