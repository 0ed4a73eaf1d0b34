// MatrixDeterminant: LU decomposition with partial pivoting, in double, of
// each matrix in the last two dims.
#include <cmath>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/kernels/cpu_kernels.h"
#include "device/cpu/kernels/element_types.h"
#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

namespace {

double Determinant(std::vector<double>& a, int64_t n) {
  double det = 1;
  for (int64_t col = 0; col < n; ++col) {
    int64_t pivot = col;
    for (int64_t row = col + 1; row < n; ++row) {
      if (std::fabs(a[row * n + col]) > std::fabs(a[pivot * n + col])) pivot = row;
    }
    if (a[pivot * n + col] == 0) return 0;
    if (pivot != col) {
      for (int64_t k = 0; k < n; ++k) std::swap(a[pivot * n + k], a[col * n + k]);
      det = -det;
    }
    const double diagonal = a[col * n + col];
    det *= diagonal;
    for (int64_t row = col + 1; row < n; ++row) {
      const double factor = a[row * n + col] / diagonal;
      for (int64_t k = col; k < n; ++k) a[row * n + k] -= factor * a[col * n + k];
    }
  }
  return det;
}

template <typename T>
class DeterminantKernel final : public Kernel {
 public:
  DeterminantKernel(int64_t batch, int64_t n) : batch_(batch), n_(n) {}

  void Run(const KernelContext& ctx) const override {
    const T* x = ctx.inputs[0].as<const T>();
    T* y = ctx.outputs[0].as<T>();
#pragma omp parallel for if (batch_ * n_ * n_ * n_ > kParallelGrain)
    for (int64_t b = 0; b < batch_; ++b) {
      std::vector<double> matrix(static_cast<size_t>(n_ * n_));
      for (int64_t i = 0; i < n_ * n_; ++i) matrix[i] = static_cast<double>(Load(x[b * n_ * n_ + i]));
      y[b] = Store<T>(Determinant(matrix, n_));
    }
  }

 private:
  int64_t batch_, n_;
};

std::unique_ptr<Kernel> MakeDeterminant(const Node& node) {
  const Shape& x = InputShape(node, 0);
  if (x.rank() < 2 || x.dim(x.rank() - 1) != x.dim(x.rank() - 2)) {
    Fail(node, ErrorCode::kInvalidArgument, fmt::format("x must be [..., M, M], got {}", x.ToString()));
  }
  const int64_t n = x.dim(x.rank() - 1);
  const int64_t batch = Product(std::span(x.dims()).first(x.rank() - 2));
  return DispatchDtype(node, InputDtype(node, 0), HalfFloatTypes{}, [&](auto tag) -> std::unique_ptr<Kernel> {
    return std::make_unique<DeterminantKernel<typename decltype(tag)::type>>(batch, n);
  });
}

}  // namespace

void RegisterDeterminantKernels(KernelRegistry& registry) {
  RegisterKernel(registry, "MatrixDeterminant", DataTypesOf(HalfFloatTypes{}), MakeDeterminant);
}

}  // namespace ge::device::cpu
