// Layer-by-layer accuracy comparison of two models on the same inputs, in the
// manner of Ascend's msaccucmp "network compare": a model (typically a
// quantized or lower-precision one) against a reference (the float model).
//
// Both graphs are compiled with the same options, every intermediate value is
// captured, and values are paired by name: the quantize rewrite gives the float
// output of a quantized layer (its AscendDequant output) the original layer's
// value name, so those pairs line up while the integer intermediates, which
// have no counterpart, are skipped. Graph outputs are compared by position.
// docs/compare.md describes the metrics, their special cases and the CSV.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ge/compiled_model.h"
#include "ge/export.h"
#include "ge/graph.h"
#include "ge/shape.h"
#include "ge/tensor.h"
#include "ge/types.h"

namespace ge {

// The ten msaccucmp metrics of one tensor pair, computed in double. "Mine" is
// the compared model (msaccucmp's "My Output", the NPU side), "truth" the
// reference. A metric that is undefined for the pair is NaN and `note` says why.
struct GE_API CompareMetrics {
  double cosine = 0;                       // CosineSimilarity, at most 1
  double max_abs_error = 0;                // MaxAbsoluteError
  double accumulated_relative_error = 0;   // AccumulatedRelativeError
  double relative_euclidean_distance = 0;  // RelativeEuclideanDistance
  double kl_divergence = 0;                // KullbackLeiblerDivergence, P from mine
  double mean_mine = 0;                    // StandardDeviation: "(mean_mine;std_mine),(mean_truth;std_truth)"
  double std_mine = 0;
  double mean_truth = 0;
  double std_truth = 0;
  double mean_absolute_error = 0;     // MeanAbsoluteError
  double root_mean_square_error = 0;  // RootMeanSquareError
  double max_relative_error = 0;      // MaxRelativeError
  double mean_relative_error = 0;     // MeanRelativeError
  std::string note;                   // special cases met, "; "-separated ("This tensor is scalar", ...)
};

// One paired value: a non-constant value of the model whose name is also a
// non-constant value of the reference, with the same element count.
struct GE_API LayerComparison {
  size_t index = 0;            // row number, from 0
  size_t op_sequence = 0;      // position of the producing node in the model's execution order
  std::string op_name;         // the model's node that produced the value (msaccucmp's NPUDump)
  std::string op_type;
  std::string value_name;      // the name both values share
  DataType dtype = DataType::kUndefined;
  std::string ground_truth;    // the reference's node that produced the value
  DataType ground_truth_dtype = DataType::kUndefined;
  size_t tensor_index = 0;     // output index of the value on its node
  Shape shape;                 // the model's shape
  CompareMetrics metrics;
  bool below_threshold = false;  // !(cosine >= CompareOptions::cosine_threshold): NaN counts as below
  std::string fail_reason;       // why no metrics could be computed (e.g. a non-numeric dtype); else empty
  std::string quant_layer;       // the producer's "_quant_layer" attribute: the original layer it quantizes
};

// Graph output `index` of the model against output `index` of the reference.
struct GE_API OutputComparison {
  size_t index = 0;
  std::string name;            // the model's output name
  std::string ground_truth;    // the reference's output name
  DataType dtype = DataType::kUndefined;
  Shape shape;
  CompareMetrics metrics;
  bool below_threshold = false;
  std::string fail_reason;
};

struct GE_API ModelComparison {
  std::vector<LayerComparison> layers;  // in the model's topological order
  std::vector<OutputComparison> outputs;
  double output_cosine = 0;             // the lowest output cosine; NaN when any output's is NaN
  double cosine_threshold = 0.99;       // the threshold below_threshold was judged by
  size_t layers_below_threshold = 0;
};

struct GE_API CompareOptions {
  Options compile_options;  // used for both models (ge.* keys, docs/options.md)
  double cosine_threshold = 0.99;
};

// Runs both graphs on `inputs` (in the order of the graphs' inputs) and
// compares every paired value and every output. Throws ge::Error
// (kInvalidArgument) when the two graphs' inputs differ in count, dtype or
// shape (naming the input), when `inputs` does not fit them, or when the
// graphs' output counts or output element counts differ; compile and run
// errors pass through.
GE_API ModelComparison CompareModels(const Graph& reference, const Graph& model, const std::vector<Tensor>& inputs,
                              const CompareOptions& options = {});

// The layer rows as CSV in msaccucmp's column order: Index, OpSequence,
// OpType, NPUDump, DataType, Address, GroundTruth, DataType, TensorIndex,
// Shape, the 10 metrics, CompareFailReason. Address is always "NaN" (there is
// no device address); NaN metrics print as "NaN"; CompareFailReason holds the
// fail reason, else the metrics' note. Fields with commas or quotes are quoted.
GE_API std::string ComparisonCsv(const ModelComparison& comparison);

}  // namespace ge
