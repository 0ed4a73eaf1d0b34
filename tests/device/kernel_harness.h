// Runs one CPU kernel on host tensors, for the device tests; plus random
// inputs and float64 comparison helpers.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "device/device.h"
#include "ge/graph.h"
#include "ge/tensor.h"

namespace ge::test {

// Creates the node's kernel through CpuDevice().kernels() (keyed by the
// dtype of input 0) and runs it. inputs[i] is the tensor of node input i; an
// empty Tensor means "absent" or, for a Const input, its constant.
// Outputs are allocated from the node's output dtypes and shapes.
std::vector<Tensor> RunCpuKernel(const Node& node, const std::vector<Tensor>& inputs);

// The two halves of RunCpuKernel, for tests that run one kernel many times.
std::unique_ptr<device::Kernel> CreateCpuKernel(const Node& node);
std::vector<Tensor> RunKernel(const device::Kernel& kernel, const Node& node, const std::vector<Tensor>& inputs);

// Uniform values in [lo, hi) (integers: rounded down).
Tensor RandomTensor(DataType dtype, Shape shape, std::mt19937& rng, double lo = -1.0, double hi = 1.0);

// Elements widened to double (float32/64, int32/64, bool, ...).
std::vector<double> ToDoubles(const Tensor& tensor);

// Checks |actual - expected| <= atol + rtol * |expected| element by element.
void CheckClose(const Tensor& actual, const std::vector<double>& expected, double rtol = 1e-5, double atol = 1e-6);

// Sets a node's output dtype and shape (the shape inference pass is not part of these tests).
void SetOutput(Node* node, size_t i, DataType dtype, Shape shape);

// Row-major index math for the reference loops.
std::vector<int64_t> Unravel(int64_t flat, const std::vector<int64_t>& dims);
int64_t Ravel(const std::vector<int64_t>& index, const std::vector<int64_t>& dims);

}  // namespace ge::test
