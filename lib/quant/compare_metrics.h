// msaccucmp's tensor metrics (docs/compare.md): how far a model's tensor
// ("mine", the quantized / NPU side) is from the reference's ("truth").
//
// Every element is converted to double first; ε is the float32 epsilon. The
// special cases follow msaccucmp's rules, and where msaccucmp leaves a choice
// (RelativeEuclideanDistance of an all-zero truth, KL of a constant tensor)
// the rule picked is documented on the metric below.
#pragma once

#include <string>

#include "ge/compare.h"
#include "ge/tensor.h"

namespace ge::quant {

// The public ge::CompareMetrics is this layer's metrics record, so the public
// header needs nothing internal and there is one definition of the fields.
using TensorMetrics = CompareMetrics;

// Metric rules, with x = mine, y = truth, n elements, "zero" meaning √Σv² ≤ ε:
// - cosine: Σxy / (‖x‖‖y‖) capped at 1; both zero -> 1; one zero -> NaN with a
//   note; n == 1 -> 1 with the note "This tensor is scalar".
// - max_abs_error max|x−y|; mean_absolute_error mean|x−y|;
//   root_mean_square_error √mean(x−y)².
// - relative errors r_i = |x_i/y_i − 1| where |y_i| > ε, else 0:
//   accumulated = Σr_i, max = max r_i, mean = Σr_i / n (all elements).
// - relative_euclidean_distance √Σ(x−y)² / √Σy²; when √Σy² ≤ ε it is 0 if
//   √Σ(x−y)² ≤ ε as well (both zero) and NaN with a note otherwise.
// - kl_divergence Σ P·ln(P/Q), P = (x−min x)/(max x−min x) floored at ε and
//   normalized to sum 1, Q likewise from y; a constant tensor gives the uniform
//   distribution; either side zero -> NaN with a note; results below ε are 0.
// - mean_* and std_* (population standard deviation) of each side.
// n == 0 makes every metric NaN ("empty tensor"). Shapes may differ as long
// as the element counts match (the tensors are compared flattened).
// Throws ge::Error: kInvalidArgument for different element counts,
// kUnsupported for a non-numeric dtype (string, complex).
// Which metrics to compute: all of them, or the cosine alone (the rest NaN),
// for a search that compares many candidates by cosine only.
enum class MetricSet { kAll, kCosineOnly };
TensorMetrics CompareTensors(const Tensor& mine, const Tensor& truth, MetricSet set = MetricSet::kAll);

// Every metric NaN, with `note` (a pair that could not be compared).
TensorMetrics UndefinedMetrics(const std::string& note);

// A metric as the CSV prints it: "NaN", "Inf" / "-Inf", else the shortest
// text that reads back as the same double.
std::string MetricText(double value);

// msaccucmp's StandardDeviation column: "(mean_mine;std_mine),(mean_truth;std_truth)".
std::string StandardDeviationText(const TensorMetrics& metrics);

}  // namespace ge::quant
