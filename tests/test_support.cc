#include "test_support.h"

#include <cmath>
#include <cstdlib>
#include <unistd.h>

#include "ge/error.h"
#include "graph/npy.h"

namespace ge::test {

std::optional<std::filesystem::path> SharedDir() {
  // GE_SHARED_DIR may be overridden at run time, e.g. by CI with another layout.
  const char* env = std::getenv("GE_SHARED_DIR");
  std::filesystem::path dir = env ? env : GE_SHARED_DIR;
  if (std::filesystem::exists(dir / "models" / "models.json")) return std::filesystem::weakly_canonical(dir);
  return std::nullopt;
}

std::filesystem::path SourceDir() { return GE_SOURCE_DIR; }

Tensor ReadNpy(const std::filesystem::path& path) { return ge::ReadNpy(path.string()); }

double Cosine(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) throw Error(ErrorCode::kInvalidArgument, "Cosine needs as many tensors on each side");
  double dot = 0, aa = 0, bb = 0;
  for (size_t t = 0; t < a.size(); ++t) {
    if (a[t].dtype() != DataType::kFloat || b[t].dtype() != DataType::kFloat || a[t].shape() != b[t].shape()) {
      throw Error(ErrorCode::kInvalidArgument, "Cosine needs float32 tensors of one shape, got " +
                                                   a[t].shape().ToString() + " and " + b[t].shape().ToString());
    }
    auto x = a[t].values<float>();
    auto y = b[t].values<float>();
    for (size_t i = 0; i < x.size(); ++i) {
      dot += double(x[i]) * y[i], aa += double(x[i]) * x[i], bb += double(y[i]) * y[i];
    }
  }
  return dot / std::sqrt(aa * bb);
}

double MaxAbsDiff(const Tensor& a, const Tensor& b) {
  if (a.dtype() != DataType::kFloat || b.dtype() != DataType::kFloat || a.shape() != b.shape()) {
    throw Error(ErrorCode::kInvalidArgument, "MaxAbsDiff needs two float32 tensors of one shape, got " +
                                                 a.shape().ToString() + " and " + b.shape().ToString());
  }
  double worst = 0;
  auto x = a.values<float>();
  auto y = b.values<float>();
  for (size_t i = 0; i < x.size(); ++i) {
    double d = std::fabs(static_cast<double>(x[i]) - y[i]);
    if (std::isnan(d)) return INFINITY;
    worst = std::max(worst, d);
  }
  return worst;
}

std::vector<float> RandomVector(size_t count, uint32_t seed, float lo, float hi) {
  const Tensor values = RandomFloats(Shape({static_cast<int64_t>(count)}), seed, lo, hi);
  const auto* data = static_cast<const float*>(values.data());
  return std::vector<float>(data, data + count);
}

std::filesystem::path TempDir(const std::string& name) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ge-test-" + name + "-" +
                                                                        std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

Tensor RandomFloats(Shape shape, uint32_t seed, float lo, float hi) {
  Tensor tensor(DataType::kFloat, std::move(shape));
  uint32_t state = seed;
  for (int64_t i = 0; i < tensor.num_elements(); ++i) {
    state = state * 1664525u + 1013904223u;
    tensor.data_as<float>()[i] = lo + (hi - lo) * static_cast<float>(state >> 8) / static_cast<float>(1u << 24);
  }
  return tensor;
}

}  // namespace ge::test
