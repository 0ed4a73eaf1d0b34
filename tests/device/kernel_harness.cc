#include "kernel_harness.h"

#include <cmath>
#include <cstring>
#include <memory>

#include <catch2/catch.hpp>

#include "ge/error.h"

namespace ge::test {

std::vector<Tensor> RunCpuKernel(const Node& node, const std::vector<Tensor>& inputs) {
  return RunKernel(*CreateCpuKernel(node), node, inputs);
}

std::unique_ptr<device::Kernel> CreateCpuKernel(const Node& node) {
  const DataType key = node.input(0) != nullptr ? node.input(0)->dtype() : node.output(0)->dtype();
  const device::KernelDef* def = device::CpuDevice().kernels().Find(node.op_type(), key);
  if (def == nullptr) {
    throw Error(ErrorCode::kUnsupported,
                "no cpu kernel for " + node.op_type() + " / " + std::string(DataTypeName(key)));
  }
  return def->factory(node);
}

std::vector<Tensor> RunKernel(const device::Kernel& kernel, const Node& node, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> in_tensors(node.num_inputs());
  std::vector<device::TensorView> in_views(node.num_inputs());
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const Value* value = node.input(i);
    if (value == nullptr) continue;
    if (i < inputs.size() && !inputs[i].empty()) {
      in_tensors[i] = inputs[i];
    } else if (value->constant() != nullptr) {
      in_tensors[i] = *value->constant();
    } else {
      FAIL("RunCpuKernel: no tensor for input " << i << " of " << node.Describe());
    }
    in_views[i] = {in_tensors[i].dtype(), &in_tensors[i].shape(), in_tensors[i].data()};
  }
  std::vector<Tensor> outputs;
  std::vector<device::TensorView> out_views;
  for (size_t i = 0; i < node.num_outputs(); ++i) {
    outputs.emplace_back(node.output(i)->dtype(), node.output(i)->shape());
  }
  for (Tensor& t : outputs) out_views.push_back({t.dtype(), &t.shape(), t.data()});

  device::Allocator& allocator = device::CpuDevice().allocator();
  const size_t workspace_bytes = kernel.WorkspaceBytes();
  void* workspace = workspace_bytes > 0 ? allocator.Allocate(workspace_bytes, 64) : nullptr;
  std::unique_ptr<device::Stream> stream = device::CpuDevice().CreateStream();
  device::KernelContext ctx{in_views, out_views, workspace, stream.get()};
  try {
    kernel.Run(ctx);
  } catch (...) {
    if (workspace) allocator.Free(workspace);
    throw;
  }
  if (workspace) allocator.Free(workspace);
  return outputs;
}

namespace {

template <typename T>
void Fill(Tensor& t, std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> dist(lo, hi);
  T* data = t.data_as<T>();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    double v = dist(rng);
    data[i] = static_cast<T>(std::is_integral_v<T> ? std::floor(v) : v);
  }
}

template <typename T>
void Widen(const Tensor& t, std::vector<double>& out) {
  for (T v : t.values<T>()) out.push_back(static_cast<double>(v));
}

// bfloat16 is the upper half of a float32.
void WidenBFloat16(const Tensor& t, std::vector<double>& out) {
  for (uint16_t bits : t.values<uint16_t>()) {
    const uint32_t word = uint32_t{bits} << 16;
    float f;
    std::memcpy(&f, &word, sizeof f);
    out.push_back(f);
  }
}

}  // namespace

Tensor RandomTensor(DataType dtype, Shape shape, std::mt19937& rng, double lo, double hi) {
  Tensor t(dtype, std::move(shape));
  switch (dtype) {
    case DataType::kFloat: Fill<float>(t, rng, lo, hi); break;
    case DataType::kDouble: Fill<double>(t, rng, lo, hi); break;
    case DataType::kInt32: Fill<int32_t>(t, rng, lo, hi); break;
    case DataType::kInt64: Fill<int64_t>(t, rng, lo, hi); break;
    case DataType::kInt8: Fill<int8_t>(t, rng, lo, hi); break;
    case DataType::kUInt8: Fill<uint8_t>(t, rng, lo, hi); break;
    default: FAIL("RandomTensor: unsupported dtype " << DataTypeName(dtype));
  }
  return t;
}

std::vector<double> ToDoubles(const Tensor& t) {
  std::vector<double> out;
  out.reserve(static_cast<size_t>(t.num_elements()));
  switch (t.dtype()) {
    case DataType::kFloat: Widen<float>(t, out); break;
    case DataType::kDouble: Widen<double>(t, out); break;
    case DataType::kInt8: Widen<int8_t>(t, out); break;
    case DataType::kUInt8: Widen<uint8_t>(t, out); break;
    case DataType::kInt16: Widen<int16_t>(t, out); break;
    case DataType::kUInt16: Widen<uint16_t>(t, out); break;
    case DataType::kInt32: Widen<int32_t>(t, out); break;
    case DataType::kUInt32: Widen<uint32_t>(t, out); break;
    case DataType::kInt64: Widen<int64_t>(t, out); break;
    case DataType::kUInt64: Widen<uint64_t>(t, out); break;
    case DataType::kBool: Widen<bool>(t, out); break;
    case DataType::kFloat16: Widen<_Float16>(t, out); break;
    case DataType::kBFloat16: WidenBFloat16(t, out); break;
    default: FAIL("ToDoubles: unsupported dtype " << DataTypeName(t.dtype()));
  }
  return out;
}

void CheckClose(const Tensor& actual, const std::vector<double>& expected, double rtol, double atol) {
  const std::vector<double> got = ToDoubles(actual);
  REQUIRE(got.size() == expected.size());
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool both_nan = std::isnan(got[i]) && std::isnan(expected[i]);
    if (!both_nan && !(std::abs(got[i] - expected[i]) <= atol + rtol * std::abs(expected[i]))) {
      if (++bad <= 5) FAIL_CHECK("element " << i << ": got " << got[i] << ", expected " << expected[i]);
    }
  }
  CHECK(bad == 0);
}

void SetOutput(Node* node, size_t i, DataType dtype, Shape shape) {
  node->output(i)->set_dtype(dtype);
  node->output(i)->set_shape(std::move(shape));
}

std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = flat % dims[d];
    flat /= dims[d];
  }
  return index;
}

int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& dims) {
  int64_t flat = 0;
  for (size_t d = 0; d < dims.size(); ++d) flat = flat * dims[d] + index[d];
  return flat;
}

}  // namespace ge::test
