#include "quant/compare_metrics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/element_types.h"
#include "ge/error.h"

namespace ge::quant {
namespace {

using device::cpu::BFloat16;

constexpr double kEpsilon = std::numeric_limits<float>::epsilon();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

template <typename T>
void AppendWidened(const Tensor& tensor, std::vector<double>& out) {
  for (T v : tensor.values<T>()) out.push_back(static_cast<double>(device::cpu::Load(v)));
}

std::vector<double> ToDoubles(const Tensor& tensor, const char* side) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(tensor.num_elements()));
  switch (tensor.dtype()) {
    case DataType::kFloat: AppendWidened<float>(tensor, out); break;
    case DataType::kDouble: AppendWidened<double>(tensor, out); break;
    case DataType::kFloat16: AppendWidened<_Float16>(tensor, out); break;
    case DataType::kBFloat16: AppendWidened<BFloat16>(tensor, out); break;
    case DataType::kInt8: AppendWidened<int8_t>(tensor, out); break;
    case DataType::kUInt8: AppendWidened<uint8_t>(tensor, out); break;
    case DataType::kInt16: AppendWidened<int16_t>(tensor, out); break;
    case DataType::kUInt16: AppendWidened<uint16_t>(tensor, out); break;
    case DataType::kInt32: AppendWidened<int32_t>(tensor, out); break;
    case DataType::kUInt32: AppendWidened<uint32_t>(tensor, out); break;
    case DataType::kInt64: AppendWidened<int64_t>(tensor, out); break;
    case DataType::kUInt64: AppendWidened<uint64_t>(tensor, out); break;
    case DataType::kBool: AppendWidened<bool>(tensor, out); break;
    default:
      throw Error(ErrorCode::kUnsupported,
                  fmt::format("cannot compare tensors of dtype {} ({} side); numeric dtypes only",
                              DataTypeName(tensor.dtype()), side));
  }
  return out;
}

double Norm(const std::vector<double>& v) {
  double sum = 0;
  for (double e : v) sum += e * e;
  return std::sqrt(sum);
}

void AddNote(TensorMetrics& metrics, const std::string& note) {
  metrics.note += (metrics.note.empty() ? "" : "; ") + note;
}

// Which side of a pair is all zero, for the notes.
const char* ZeroSide(bool mine_zero) { return mine_zero ? "My Output is all zero" : "Ground Truth is all zero"; }

void Cosine(const std::vector<double>& x, const std::vector<double>& y, TensorMetrics& metrics) {
  if (x.size() == 1) {
    metrics.cosine = 1.0;
    AddNote(metrics, "This tensor is scalar");
    return;
  }
  const double norm_x = Norm(x);
  const double norm_y = Norm(y);
  const bool zero_x = norm_x <= kEpsilon;
  const bool zero_y = norm_y <= kEpsilon;
  if (zero_x && zero_y) {
    metrics.cosine = 1.0;
  } else if (zero_x || zero_y) {
    metrics.cosine = kNaN;
    AddNote(metrics, fmt::format("CosineSimilarity: {}", ZeroSide(zero_x)));
  } else {
    double dot = 0;
    for (size_t i = 0; i < x.size(); ++i) dot += (x[i] / norm_x) * (y[i] / norm_y);
    metrics.cosine = std::min(dot, 1.0);
  }
}

void AbsoluteErrors(const std::vector<double>& x, const std::vector<double>& y, TensorMetrics& metrics) {
  double max_abs = 0, sum_abs = 0, sum_square = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double diff = x[i] - y[i];
    max_abs = std::max(max_abs, std::abs(diff));
    sum_abs += std::abs(diff);
    sum_square += diff * diff;
  }
  const double n = static_cast<double>(x.size());
  metrics.max_abs_error = max_abs;
  metrics.mean_absolute_error = sum_abs / n;
  metrics.root_mean_square_error = std::sqrt(sum_square / n);

  const double distance = std::sqrt(sum_square);
  const double norm_y = Norm(y);
  if (norm_y > kEpsilon) {
    metrics.relative_euclidean_distance = distance / norm_y;
  } else if (distance <= kEpsilon) {
    metrics.relative_euclidean_distance = 0.0;
  } else {
    metrics.relative_euclidean_distance = kNaN;
    AddNote(metrics, "RelativeEuclideanDistance: Ground Truth is all zero");
  }
}

void RelativeErrors(const std::vector<double>& x, const std::vector<double>& y, TensorMetrics& metrics) {
  double sum = 0, max = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::abs(y[i]) <= kEpsilon) continue;  // counted as 0
    const double relative = std::abs(x[i] / y[i] - 1.0);
    sum += relative;
    max = std::max(max, relative);
  }
  metrics.accumulated_relative_error = sum;
  metrics.max_relative_error = max;
  metrics.mean_relative_error = sum / static_cast<double>(x.size());
}

// Min-max scaled, floored at ε and normalized to sum 1; uniform for a constant tensor.
std::vector<double> Distribution(const std::vector<double>& v) {
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  const double min = *lo, range = *hi - *lo;
  std::vector<double> p(v.size());
  double total = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    p[i] = std::max(range > 0 ? (v[i] - min) / range : 0.0, kEpsilon);
    total += p[i];
  }
  for (double& e : p) e /= total;
  return p;
}

void KlDivergence(const std::vector<double>& x, const std::vector<double>& y, TensorMetrics& metrics) {
  const bool zero_x = Norm(x) <= kEpsilon;
  const bool zero_y = Norm(y) <= kEpsilon;
  if (zero_x || zero_y) {
    metrics.kl_divergence = kNaN;
    AddNote(metrics, fmt::format("KullbackLeiblerDivergence: {}",
                                 zero_x && zero_y ? "both tensors are all zero" : ZeroSide(zero_x)));
    return;
  }
  const std::vector<double> p = Distribution(x);
  const std::vector<double> q = Distribution(y);
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) kl += p[i] * std::log(p[i] / q[i]);
  metrics.kl_divergence = kl < kEpsilon ? 0.0 : kl;
}

void MeanAndStd(const std::vector<double>& v, double& mean, double& std_dev) {
  double sum = 0;
  for (double e : v) sum += e;
  mean = sum / static_cast<double>(v.size());
  double square = 0;
  for (double e : v) square += (e - mean) * (e - mean);
  std_dev = std::sqrt(square / static_cast<double>(v.size()));
}

}  // namespace

TensorMetrics UndefinedMetrics(const std::string& note) {
  TensorMetrics m;
  for (double* field : {&m.cosine, &m.max_abs_error, &m.accumulated_relative_error, &m.relative_euclidean_distance,
                        &m.kl_divergence, &m.mean_mine, &m.std_mine, &m.mean_truth, &m.std_truth,
                        &m.mean_absolute_error, &m.root_mean_square_error, &m.max_relative_error,
                        &m.mean_relative_error}) {
    *field = kNaN;
  }
  m.note = note;
  return m;
}

TensorMetrics CompareTensors(const Tensor& mine, const Tensor& truth, MetricSet set) {
  if (mine.num_elements() != truth.num_elements()) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("cannot compare a {}{} tensor ({} elements) with a {}{} ground truth ({} elements)",
                            DataTypeName(mine.dtype()), mine.shape().ToString(), mine.num_elements(),
                            DataTypeName(truth.dtype()), truth.shape().ToString(), truth.num_elements()));
  }
  const std::vector<double> x = ToDoubles(mine, "My Output");
  const std::vector<double> y = ToDoubles(truth, "Ground Truth");
  if (x.empty()) return UndefinedMetrics("empty tensor");
  if (set == MetricSet::kCosineOnly) {
    TensorMetrics metrics = UndefinedMetrics("");
    Cosine(x, y, metrics);
    return metrics;
  }
  TensorMetrics metrics;
  Cosine(x, y, metrics);
  AbsoluteErrors(x, y, metrics);
  RelativeErrors(x, y, metrics);
  KlDivergence(x, y, metrics);
  MeanAndStd(x, metrics.mean_mine, metrics.std_mine);
  MeanAndStd(y, metrics.mean_truth, metrics.std_truth);
  return metrics;
}

std::string MetricText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  return fmt::format("{}", value);
}

std::string StandardDeviationText(const TensorMetrics& metrics) {
  return fmt::format("({};{}),({};{})", MetricText(metrics.mean_mine), MetricText(metrics.std_mine),
                     MetricText(metrics.mean_truth), MetricText(metrics.std_truth));
}

}  // namespace ge::quant
