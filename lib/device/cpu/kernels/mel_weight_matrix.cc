// MelWeightMatrix (ONNX opset 17): num_mel_bins triangular filters over the
// dft_length / 2 + 1 spectrogram bins. num_mel_bins + 2 points spaced by
// (high - low) / (num_mel_bins + 2) in mel (2595 log10(1 + hz / 700)) from the
// lower edge are mapped back to hertz and to bins
// floor((dft_length + 1) hz / sample_rate); filter i rises from point i to
// i + 1 and falls to i + 2 (the ONNX reference's construction).
#include <cmath>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

double FloatScalar(const TensorView& v) {
  return v.dtype == DataType::kDouble ? v.as<const double>()[0] : static_cast<double>(v.as<const float>()[0]);
}

template <typename T>
class MelWeightMatrixKernel final : public Kernel {
 public:
  explicit MelWeightMatrixKernel(const Node& node)
      : label_(node.Describe()), rows_(OutputShape(node, 0).dim(0)), mel_bins_(OutputShape(node, 0).dim(1)) {}

  void Run(const KernelContext& ctx) const override {
    const int64_t mel_bins = ReadIndexTensor(label_, ctx.inputs[0], "num_mel_bins")[0];
    const int64_t dft_length = ReadIndexTensor(label_, ctx.inputs[1], "dft_length")[0];
    const int64_t sample_rate = ReadIndexTensor(label_, ctx.inputs[2], "sample_rate")[0];
    if (mel_bins != mel_bins_ || dft_length <= 0 || dft_length / 2 + 1 != rows_ || sample_rate <= 0) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: num_mel_bins {}, dft_length {} and sample_rate {} do not fit the output [{}, {}]",
                              label_, mel_bins, dft_length, sample_rate, rows_, mel_bins_));
    }
    auto to_mel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
    const double low = to_mel(FloatScalar(ctx.inputs[3])), high = to_mel(FloatScalar(ctx.inputs[4]));
    // The reference spaces the points by (high - low) / (num_mel_bins + 2), so the last one stops short of high.
    const double step = (high - low) / static_cast<double>(mel_bins + 2);
    std::vector<int64_t> points;
    for (int64_t i = 0; i < mel_bins + 2; ++i) {
      const double hz = 700 * (std::pow(10.0, (static_cast<double>(i) * step + low) / 2595) - 1);
      points.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(dft_length + 1) * hz / static_cast<double>(sample_rate))));
    }
    if (points.front() < 0 || points.back() >= rows_) {
      throw Error(ErrorCode::kInvalidArgument,
                  fmt::format("{}: the edges give bins {} to {}, outside the {} spectrogram bins", label_,
                              points.front(), points.back(), rows_));
    }
    T* y = ctx.outputs[0].as<T>();
    std::vector<double> w(static_cast<size_t>(rows_ * mel_bins), 0.0);
    for (int64_t i = 0; i < mel_bins; ++i) {
      const int64_t left = points[i], centre = points[i + 1], right = points[i + 2];
      if (centre == left) {
        w[centre * mel_bins + i] = 1;
      } else {
        for (int64_t j = left; j <= centre; ++j) {
          w[j * mel_bins + i] = static_cast<double>(j - left) / static_cast<double>(centre - left);
        }
      }
      for (int64_t j = centre; j < right; ++j) {
        w[j * mel_bins + i] = static_cast<double>(right - j) / static_cast<double>(right - centre);
      }
    }
    for (size_t k = 0; k < w.size(); ++k) y[k] = Store<T>(static_cast<Compute<T>>(w[k]));
  }

 private:
  std::string label_;
  int64_t rows_, mel_bins_;
};

std::unique_ptr<Kernel> MakeMelWeightMatrix(const Node& node) {
  if (OutputShape(node, 0).rank() != 2) {
    Fail(node, ErrorCode::kInvalidModel, fmt::format("y {} must be 2-D", OutputShape(node, 0).ToString()));
  }
  for (size_t i = 3; i < 5; ++i) RequireInputDtype(node, i, {DataType::kFloat, DataType::kDouble});
  return DispatchDtype(node, node.output(0)->dtype(), NumericTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<MelWeightMatrixKernel<typename decltype(tag)::type>>(node);
  });
}

}  // namespace

void RegisterMelWeightMatrixKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MelWeightMatrix", {DataType::kInt32, DataType::kInt64}, MakeMelWeightMatrix);
}

}  // namespace ge::device::cpu
