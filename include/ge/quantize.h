// Post-training quantization, AMCT style (docs/quantization.md).
//
// Quantize() takes a float graph, an AMCT simple config (protobuf text) and
// calibration batches. It calibrates activations (IFMR, HFMG or min-max) by
// running the float graph through the normal runtime, calibrates weights with
// ARQ, and returns an ordinary graph in CANN's deploy form: AscendQuant ->
// int8/int16 Conv2D/MatMulV2/... with int32 accumulation -> AscendDequant (or
// AscendRequant between consecutive quantized layers), and
// WeightQuantBatchMatmulV2 / FFN with int8 weights for weight-only layers.
// Compile the result with CompiledModel::Compile like any graph.
//
// With a target output cosine, layers that miss the per-layer gate climb a
// ladder (another calibrator, INT16 activations, float), cheapest first,
// until the targets hold; every step is reported and the final config,
// record, op_precision ini and keep_dtype list replay the outcome.
#pragma once

#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge {

struct GE_API QuantizeOptions {
  // AMCT simple config (AMCTConfig in protobuf text format); empty: AMCT's
  // defaults (INT8, IFMR with offsets, channel-wise symmetric ARQ).
  std::string config_path;
  // Calibration data: each entry is one batch of model inputs, in model input
  // order. The config's batch_num batches are used; fewer is an error.
  std::vector<std::vector<Tensor>> calibration_batches;
  // A record file to take the factors from instead of calibrating.
  std::string record_in;
  // Where to write the factors (protobuf text); empty: not written.
  std::string record_out;
  // The instruction set of the CPU the model will run on, by GE_MAX_CPU_ISA's
  // names (AVX2, AVX512_CORE_VNNI, ...); empty: this machine's, as capped.
  // Without VNNI, Conv2D filters are quantized to 7 bits unless the config
  // sets quant_bits: the int8 kernels then multiply them once, not twice
  // (docs/quantization.md).
  std::string target_isa;
  // The product the model is quantized for (ATC's --soc_version, CANN's
  // spellings: Ascend310P3, Ascend910B1, Ascend910_9391, Ascend310B1, IPV350,
  // ...); its rules decide which layers may be quantized (docs/quantization.md).
  // Empty or "CPU": ge's CPU runtime, with no product restrictions.
  std::string soc_version;
  // Merge AscendDequant -> AscendQuant chains into AscendRequant.
  bool requant_fusion = true;
  // When set, layers below layer_cosine climb the fallback ladder until every
  // quantized layer reaches layer_cosine and the model output reaches this.
  std::optional<double> target_output_cosine;
  double layer_cosine = 0.99;
  // Options of the float graph's compilation (ge.* keys).
  Options compile_options;
  // Progress: stage ("calibrate", "fallback"), steps done, steps in all.
  std::function<void(const std::string& stage, size_t done, size_t total)> progress;
};

// What happened to one candidate layer.
struct GE_API QuantizedLayer {
  std::string layer;            // node name in the float graph
  std::string op_type;          // Ascend IR type (Conv2D, MatMulV2, ...)
  std::string framework;        // the model's framework: "ONNX", "TensorFlow", "Caffe"
  std::string framework_op;     // the layer's op in that framework ("Gemm", "_FusedConv2D", "Pooling")
  std::string rule;             // the support-table row that decided it, with its constraint
  std::string decision;         // "INT8", "INT16", "weight-only INT8", "skipped: <rule or config entry>"
  std::vector<std::string> notes;  // what a rule changed in its config (e.g. channel_wise turned off)
  std::string activation_algo;  // "ifmr", "hfmg", "minmax"; empty when not calibrated
  // Cosine of the layer's output against the float graph (NaN: not compared).
  double cosine = std::numeric_limits<double>::quiet_NaN();
};

// One rung climbed by the fallback ladder.
struct GE_API FallbackStep {
  std::string layer;
  std::string from;  // e.g. "INT8 ifmr"
  std::string to;    // e.g. "INT8 hfmg", "INT16 ifmr", "float"
  double layer_cosine_before = 0;
  double layer_cosine_after = 0;  // NaN when the layer went to float
  double output_cosine_after = 0;
};

struct GE_API QuantizeResult {
  std::unique_ptr<Graph> graph;  // the deploy graph
  std::vector<QuantizedLayer> layers;
  std::vector<FallbackStep> fallback;
  // Model output cosine against the float graph on the first calibration
  // batch (NaN when there was no batch to compare on).
  double output_cosine = std::numeric_limits<double>::quiet_NaN();
  std::string final_config;      // the AMCT config that replays this result
  std::string record;            // the record file's text
  std::string op_precision_ini;  // [ByNodeName] entries of the layers left in float
  std::string keep_dtype;        // one node name per line: the layers left in float
  std::string compare_csv;       // the last layer-wise comparison (msaccucmp columns)
  std::vector<std::string> warnings;  // what the target product's rules warn of (Caffe no longer maintained)
};

// Throws ge::Error naming the config file and line, the layer and the rule,
// or the calibration input that is wrong.
GE_API QuantizeResult Quantize(const Graph& float_graph, const QuantizeOptions& options);

// Calibration batches from a folder of .npy files (sorted by name; one file
// per batch for a one-input model, files named after the inputs otherwise:
// "<input>_<k>.npy" or "<input>.<k>.npy") or from a text file listing one
// batch per line (comma-separated .npy paths in model input order).
// Throws ge::Error naming the file and the input it does not fit.
GE_API std::vector<std::vector<Tensor>> LoadCalibrationData(const std::string& path, const std::vector<TensorInfo>& inputs);

}  // namespace ge
