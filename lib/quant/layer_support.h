// Which layers post-training quantization may rewrite, and under which
// constraints: the planner that applies the table of the framework each
// layer came from (framework_layer_table.h), the engine's own limits and the
// user's config to a float graph, deciding every candidate layer; and the
// weight-only support table.
#pragma once

#include <string>
#include <vector>

#include "ge/graph.h"
#include "quant/framework_layer_table.h"
#include "quant/product_rules.h"
#include "quant/quant_config.h"
#include "quant/quant_types.h"

namespace ge::quant {

// One row of the weight-only support table.
struct WeightOnlySupportRow {
  std::string ascend_op;     // "MatMulV2", "BatchMatMulV2", "FFN"
  std::string channel_wise;  // ARQ channel_wise values supported
  std::string asymmetric;    // ARQ asymmetric values supported
  std::string constraint;
};

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
  std::vector<std::string> type_names;  // {Ascend op, framework op(s)} for config matching
  std::string framework;                // "ONNX", "TensorFlow", "Caffe"
  std::string framework_op;             // the op as its framework spells it ("Gemm", "_FusedConv2D", "Pooling")
  // The table row that decided it ("TensorFlow MatMul: transpose_a, ...") or
  // why no row did.
  std::string rule;
  QuantLayerKind kind = QuantLayerKind::kWeighted;
  bool quantize = false;
  std::string reason;  // the rule or config entry that skipped it; empty when quantized
  // What a rule changed in the config of a layer it let through (MatMul's
  // channel_wise turned off), for the report.
  std::vector<std::string> notes;
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
// MaxPool/MaxPoolV3, Add, FFN; and a Caffe Eltwise of another operation than
// SUM), in topological order, by the table of the framework it came from and
// the rules of the target product. Skipped candidates are listed too, with
// the reason.
std::vector<QuantLayer> PlanQuantLayers(const Graph& graph, const QuantConfig& config, const Product& product = {});

}  // namespace ge::quant
