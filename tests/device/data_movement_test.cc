// ConcatD/SplitVD, StridedSliceV2, GatherV2D, Cast, Shape and the views.
#include <cmath>
#include <cstring>
#include <limits>

#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

TEST_CASE("ConcatD and SplitVD along inner and outer axes", "[device][concat]") {
  std::mt19937 rng(50);
  for (int64_t axis : {0, 1, 2, -1}) {
    const size_t a = axis < 0 ? 2 : static_cast<size_t>(axis);
    std::vector<Shape> parts;
    for (int64_t len : {2, 3, 1}) {
      std::vector<int64_t> dims = {4, 5, 6};
      dims[a] = len;
      parts.emplace_back(dims);
    }
    std::vector<int64_t> whole_dims = {4, 5, 6};
    whole_dims[a] = 6;
    std::vector<Tensor> inputs;
    Graph g;
    std::vector<Value*> values;
    for (size_t i = 0; i < parts.size(); ++i) {
      inputs.push_back(RandomTensor(DataType::kInt32, parts[i], rng, -100, 100));
      values.push_back(g.AddInput("x" + std::to_string(i), DataType::kInt32, parts[i]));
    }
    Node* concat = g.AddNode("ConcatD", "concat", values);
    concat->attrs().Set("concat_dim", axis);
    concat->attrs().Set("N", int64_t{3});
    SetOutput(concat, 0, DataType::kInt32, Shape(whole_dims));

    std::vector<double> expected;
    for (int64_t i = 0; i < Shape(whole_dims).NumElements(); ++i) {
      auto index = Unravel(i, whole_dims);
      size_t part = 0;
      while (index[a] >= parts[part].dim(a)) index[a] -= parts[part++].dim(a);
      expected.push_back(ToDoubles(inputs[part])[Ravel(index, parts[part].dims())]);
    }
    INFO("axis " << axis);
    Tensor joined = RunCpuKernel(*concat, inputs)[0];
    CheckClose(joined, expected, 0, 0);

    Node* split = g.AddNode("SplitVD", "split", {g.AddInput("whole", DataType::kInt32, Shape(whole_dims))}, 3);
    split->attrs().Set("size_splits", std::vector<int64_t>{2, 3, 1});
    split->attrs().Set("split_dim", axis);
    split->attrs().Set("num_split", int64_t{3});
    for (size_t i = 0; i < 3; ++i) SetOutput(split, i, DataType::kInt32, parts[i]);
    auto pieces = RunCpuKernel(*split, {joined});
    for (size_t i = 0; i < 3; ++i) CheckClose(pieces[i], ToDoubles(inputs[i]), 0, 0);
  }
}

namespace {

// Runs StridedSliceV2 with int64 index inputs given as constants.
Tensor Slice(const Tensor& x, const std::vector<int64_t>& begin, const std::vector<int64_t>& end,
             const std::vector<int64_t>& axes, const std::vector<int64_t>& steps, const Shape& out) {
  Graph g;
  auto index = [&](const char* name, const std::vector<int64_t>& v) {
    return g.AddConstant(name, Tensor::FromVector<int64_t>(DataType::kInt64, {int64_t(v.size())}, v));
  };
  std::vector<Value*> inputs = {g.AddInput("x", x.dtype(), x.shape()), index("begin", begin), index("end", end),
                                axes.empty() ? nullptr : index("axes", axes),
                                steps.empty() ? nullptr : index("steps", steps)};
  Node* node = g.AddNode("StridedSliceV2", "slice", inputs);
  SetOutput(node, 0, x.dtype(), out);
  return RunCpuKernel(*node, {x})[0];
}

}  // namespace

TEST_CASE("StridedSliceV2 follows ONNX Slice: negatives, clamping, steps", "[device][slice]") {
  std::vector<float> values(4 * 10);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {4, 10}, values);
  // Reference: rows r, columns c -> 10 * r + c.
  auto grid = [](std::vector<int64_t> rows, std::vector<int64_t> cols) {
    std::vector<double> out;
    for (int64_t r : rows)
      for (int64_t c : cols) out.push_back(10.0 * r + c);
    return out;
  };
  CheckClose(Slice(x, {1, 2}, {3, 8}, {}, {}, {2, 6}), grid({1, 2}, {2, 3, 4, 5, 6, 7}), 0, 0);
  CheckClose(Slice(x, {-1}, {-1000}, {1}, {-3}, {4, 4}), grid({0, 1, 2, 3}, {9, 6, 3, 0}), 0, 0);
  CheckClose(Slice(x, {100, 0}, {-100, 1}, {0, 1}, {-1, 1}, {4, 1}), grid({3, 2, 1, 0}, {0}), 0, 0);
  CheckClose(Slice(x, {1}, {std::numeric_limits<int64_t>::max()}, {-1}, {4}, {4, 3}),
             grid({0, 1, 2, 3}, {1, 5, 9}), 0, 0);
  CheckClose(Slice(x, {5}, {2}, {1}, {}, {4, 0}), {}, 0, 0);  // empty
  CheckClose(Slice(x, {2}, {0}, {0}, {std::numeric_limits<int64_t>::min()}, {1, 10}), grid({2}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}), 0, 0);
  CHECK_THROWS_WITH(Slice(x, {0}, {2}, {1}, {0}, {4, 2}), Catch::Contains("slice") && Catch::Contains("strides"));
  CHECK_THROWS_WITH(Slice(x, {0}, {5}, {1}, {}, {4, 3}), Catch::Contains("output"));
}

TEST_CASE("GatherV2D with negative indices, axes and batch_dims", "[device][gather]") {
  std::mt19937 rng(51);
  const Shape shape{3, 4, 5};
  Tensor x = RandomTensor(DataType::kFloat, shape, rng);
  const auto xd = ToDoubles(x);
  for (int64_t axis : {0, 1, -1}) {
    const size_t a = axis < 0 ? 2 : static_cast<size_t>(axis);
    const int64_t n = shape.dim(a);
    Tensor indices = Tensor::FromVector<int32_t>(DataType::kInt32, {2, 2}, {0, -1, int32_t(n - 2), 1});
    std::vector<int64_t> out_dims;
    for (size_t d = 0; d < 3; ++d) {
      if (d == a) {
        out_dims.push_back(2);
        out_dims.push_back(2);
      } else {
        out_dims.push_back(shape.dim(d));
      }
    }
    std::vector<double> expected;
    const int32_t* idx = indices.data_as<int32_t>();
    for (int64_t i = 0; i < Shape(out_dims).NumElements(); ++i) {
      const auto o = Unravel(i, out_dims);
      std::vector<int64_t> in_index;
      for (size_t d = 0; d < a; ++d) in_index.push_back(o[d]);
      int64_t k = idx[o[a] * 2 + o[a + 1]];
      in_index.push_back(k < 0 ? k + n : k);
      for (size_t d = a + 2; d < o.size(); ++d) in_index.push_back(o[d]);
      expected.push_back(xd[Ravel(in_index, shape.dims())]);
    }
    Graph g;
    Node* node = g.AddNode("GatherV2D", "gather",
                           {g.AddInput("x", DataType::kFloat, shape), g.AddInput("i", DataType::kInt32, {2, 2})});
    node->attrs().Set("axis", axis);
    node->attrs().Set("batch_dims", int64_t{0});
    SetOutput(node, 0, DataType::kFloat, Shape(out_dims));
    INFO("axis " << axis);
    CheckClose(RunCpuKernel(*node, {x, indices})[0], expected, 0, 0);

  }
}

TEST_CASE("GatherV2D rejects out-of-range indices at run time, naming the node", "[device][gather]") {
  Graph g;
  Node* node = g.AddNode("GatherV2D", "embedding",
                         {g.AddInput("x", DataType::kFloat, {4, 2}), g.AddInput("i", DataType::kInt64, {3})});
  node->attrs().Set("axis", int64_t{0});
  node->attrs().Set("batch_dims", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {3, 2});
  Tensor x(DataType::kFloat, {4, 2});
  for (int64_t bad : {4, -5}) {
    Tensor indices = Tensor::FromVector<int64_t>(DataType::kInt64, {3}, {0, bad, 1});
    CHECK_THROWS_WITH(RunCpuKernel(*node, {x, indices}),
                      Catch::Contains("embedding") && Catch::Contains(std::to_string(bad)) &&
                          Catch::Contains("out of range"));
  }
}

TEST_CASE("GatherV2D with batch_dims gathers per batch", "[device][gather]") {
  // x [2, 3, 4], indices [2, 2], axis 1, batch_dims 1: y[b, i, :] = x[b, idx[b, i], :].
  std::vector<float> xv(24);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i);
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {2, 3, 4}, xv);
  Tensor indices = Tensor::FromVector<int64_t>(DataType::kInt64, {2, 2}, {2, 0, -1, 1});
  Graph g;
  Node* node = g.AddNode("GatherV2D", "g",
                         {g.AddInput("x", DataType::kFloat, {2, 3, 4}), g.AddInput("i", DataType::kInt64, {2, 2})});
  node->attrs().Set("axis", int64_t{1});
  node->attrs().Set("batch_dims", int64_t{1});
  SetOutput(node, 0, DataType::kFloat, {2, 2, 4});
  std::vector<double> expected;
  for (auto [b, row] : std::vector<std::pair<int, int>>{{0, 2}, {0, 0}, {1, 2}, {1, 1}}) {
    for (int c = 0; c < 4; ++c) expected.push_back(b * 12 + row * 4 + c);
  }
  CheckClose(RunCpuKernel(*node, {x, indices})[0], expected, 0, 0);
}

namespace {

Tensor Cast(const Tensor& x, DataType to) {
  Graph g;
  Node* node = g.AddNode("Cast", "cast", {g.AddInput("x", x.dtype(), x.shape())});
  node->attrs().Set("dst_type", static_cast<int64_t>(to));
  SetOutput(node, 0, to, x.shape());
  return RunCpuKernel(*node, {x})[0];
}

}  // namespace

TEST_CASE("Cast between numeric types and bool", "[device][cast]") {
  Tensor f = Tensor::FromVector<float>(DataType::kFloat, {6}, {-2.7f, -0.5f, 0.0f, 0.4f, 3.9f, 300.0f});
  CheckClose(Cast(f, DataType::kInt32), {-2, 0, 0, 0, 3, 300}, 0, 0);  // truncation toward zero
  CheckClose(Cast(f, DataType::kInt8), {-2, 0, 0, 0, 3, 127}, 0, 0);   // saturates
  CheckClose(Cast(f, DataType::kUInt8), {0, 0, 0, 0, 3, 255}, 0, 0);
  CheckClose(Cast(f, DataType::kBool), {1, 1, 0, 1, 1, 1}, 0, 0);
  CheckClose(Cast(f, DataType::kDouble), ToDoubles(f), 0, 0);
  CheckClose(Cast(f, DataType::kFloat16), {-2.69921875, -0.5, 0, 0.39990234375, 3.900390625, 300}, 0, 0);

  Tensor bf = Cast(f, DataType::kBFloat16);
  CheckClose(Cast(bf, DataType::kFloat), {-2.703125, -0.5, 0, 0.400390625, 3.90625, 300}, 0, 0);

  Tensor i = Tensor::FromVector<int64_t>(DataType::kInt64, {4}, {-3, 0, 7, int64_t{1} << 40});
  CheckClose(Cast(i, DataType::kFloat), {-3, 0, 7, std::ldexp(1.0, 40)}, 0, 0);
  CheckClose(Cast(i, DataType::kBool), {1, 0, 1, 1}, 0, 0);
  Tensor b = Tensor::FromVector<uint8_t>(DataType::kBool, {3}, {1, 0, 1});
  CheckClose(Cast(b, DataType::kInt32), {1, 0, 1}, 0, 0);
  CheckClose(Cast(b, DataType::kFloat), {1, 0, 1}, 0, 0);

  Tensor nan = Tensor::FromVector<float>(DataType::kFloat, {1}, {std::nanf("")});
  CheckClose(Cast(nan, DataType::kInt32), {0}, 0, 0);
}

TEST_CASE("Shape writes the static input shape as int32 or int64", "[device][shape]") {
  for (DataType dtype : {DataType::kInt32, DataType::kInt64}) {
    Graph g;
    Node* node = g.AddNode("Shape", "shape", {g.AddInput("x", DataType::kFloat, {2, 0, 7})});
    node->attrs().Set("dtype", static_cast<int64_t>(dtype));
    SetOutput(node, 0, dtype, {3});
    CheckClose(RunCpuKernel(*node, {Tensor(DataType::kFloat, {2, 0, 7})})[0], {2, 0, 7}, 0, 0);
  }
}

TEST_CASE("views alias their input or copy it", "[device][view]") {
  Tensor x = Tensor::FromVector<float>(DataType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  for (const char* op : {"Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze"}) {
    Graph g;
    std::vector<Value*> inputs = {g.AddInput("x", DataType::kFloat, {2, 3})};
    if (std::string(op) == "Reshape") {
      inputs.push_back(g.AddConstant("shape", Tensor::FromVector<int64_t>(DataType::kInt64, {1}, {6})));
    }
    Node* node = g.AddNode(op, "view", inputs);
    SetOutput(node, 0, DataType::kFloat, {6});
    auto def = device::CpuDevice().kernels().Find(op, DataType::kFloat);
    REQUIRE(def != nullptr);
    auto kernel = def->factory(*node);
    CHECK(kernel->AliasedInput(0) == 0);
    // A copy when the buffers differ...
    INFO(op);
    CheckClose(RunCpuKernel(*node, {x})[0], {1, 2, 3, 4, 5, 6}, 0, 0);
    // ...and nothing at all when the runtime aliased them.
    Tensor same = x.Clone();
    device::TensorView view{DataType::kFloat, &same.shape(), same.data()};
    device::TensorView views[] = {view, view};
    kernel->Run({std::span(views, inputs.size()), std::span(views, 1), nullptr, nullptr});
    CheckClose(same, {1, 2, 3, 4, 5, 6}, 0, 0);
  }
}
