// Conv2D, MaxPoolV3 and AvgPoolV2 with data_format NHWC against the NCHW
// kernels (themselves checked against float64 loops in conv_test.cc and
// pooling_norm_test.cc): the NHWC result must be the NCHW one transposed.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

// Element (n, c, h, w) of an NCHW tensor goes to (n, h, w, c), or back with to_nhwc = false.
Tensor Transposed(const Tensor& t, bool to_nhwc) {
  const std::vector<int64_t>& d = t.shape().dims();
  const std::vector<int64_t> nchw = to_nhwc ? d : std::vector<int64_t>{d[0], d[3], d[1], d[2]};
  const std::vector<int64_t> nhwc = {nchw[0], nchw[2], nchw[3], nchw[1]};
  Tensor out(t.dtype(), Shape(to_nhwc ? nhwc : nchw));
  const size_t element = DataTypeSize(t.dtype());
  const auto* in = static_cast<const std::byte*>(t.data());
  auto* y = static_cast<std::byte*>(out.data());
  for (int64_t flat = 0; flat < t.num_elements(); ++flat) {
    const std::vector<int64_t> i = Unravel(flat, nchw);  // (n, c, h, w)
    const int64_t other = Ravel({i[0], i[2], i[3], i[1]}, nhwc);
    const int64_t from = to_nhwc ? flat : other, to = to_nhwc ? other : flat;
    std::memcpy(y + to * element, in + from * element, element);
  }
  return out;
}

// The window attributes of an NCHW node restated for its NHWC copy.
std::vector<int64_t> ToNhwcOrder(const std::vector<int64_t>& v) { return {v[0], v[2], v[3], v[1]}; }

struct ConvCase {
  int64_t n, c, h, w, out_c, k, groups, stride, dilation;
  std::vector<int64_t> pads;
  bool bias;
};

// One Conv2D node in the given layout; x is NCHW-shaped [n, c, h, w] before the layout is applied.
Node* AddConv(Graph& g, const ConvCase& k, const Tensor& filter, const Tensor& bias, bool nhwc) {
  Shape x_shape{k.n, k.c, k.h, k.w};
  const int64_t oh = (k.h + k.pads[0] + k.pads[1] - k.dilation * (k.k - 1) - 1) / k.stride + 1;
  const int64_t ow = (k.w + k.pads[2] + k.pads[3] - k.dilation * (k.k - 1) - 1) / k.stride + 1;
  Shape y_shape{k.n, k.out_c, oh, ow};
  if (nhwc) {
    x_shape = Shape(ToNhwcOrder(x_shape.dims()));
    y_shape = Shape(ToNhwcOrder(y_shape.dims()));
  }
  std::vector<Value*> inputs = {g.AddInput("x", DataType::kFloat, x_shape), g.AddConstant("w", filter)};
  if (k.bias) inputs.push_back(g.AddConstant("b", bias));
  Node* node = g.AddNode("Conv2D", "conv", inputs);
  const std::vector<int64_t> strides = {1, 1, k.stride, k.stride}, dilations = {1, 1, k.dilation, k.dilation};
  node->attrs().Set("strides", nhwc ? ToNhwcOrder(strides) : strides);
  node->attrs().Set("dilations", nhwc ? ToNhwcOrder(dilations) : dilations);
  node->attrs().Set("pads", k.pads);
  node->attrs().Set("groups", k.groups);
  node->attrs().Set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, y_shape);
  return node;
}

void CheckConvCase(const ConvCase& k) {
  std::mt19937 rng(7);
  const Tensor x = RandomTensor(DataType::kFloat, {k.n, k.c, k.h, k.w}, rng);
  const Tensor filter = RandomTensor(DataType::kFloat, {k.out_c, k.c / k.groups, k.k, k.k}, rng);
  const Tensor bias = RandomTensor(DataType::kFloat, {k.out_c}, rng);
  Graph nchw_graph, nhwc_graph;
  const Node* nchw = AddConv(nchw_graph, k, filter, bias, /*nhwc=*/false);
  const Node* nhwc = AddConv(nhwc_graph, k, filter, bias, /*nhwc=*/true);
  const Tensor expected = Transposed(RunCpuKernel(*nchw, {x})[0], /*to_nhwc=*/true);
  const Tensor actual = RunCpuKernel(*nhwc, {Transposed(x, /*to_nhwc=*/true)})[0];
  REQUIRE(actual.shape() == expected.shape());
  CheckClose(actual, ToDoubles(expected), 1e-5, 1e-5);
}

TEST_CASE("conv nhwc: float32 Conv2D on NHWC equals the NCHW kernel transposed", "[conv][nhwc]") {
  // n, c, h, w, out_c, k, groups, stride, dilation, pads, bias
  CheckConvCase({1, 16, 12, 12, 24, 1, 1, 1, 1, {0, 0, 0, 0}, true});   // pointwise
  CheckConvCase({2, 8, 11, 9, 16, 3, 1, 1, 1, {1, 1, 1, 1}, false});    // 3x3 same, batch 2
  CheckConvCase({1, 3, 17, 17, 32, 3, 1, 2, 1, {1, 1, 1, 1}, true});    // a first layer: 3 channels, stride 2
  CheckConvCase({1, 8, 13, 13, 8, 3, 1, 1, 2, {2, 2, 2, 2}, true});     // dilated
  CheckConvCase({1, 8, 10, 10, 12, 3, 2, 1, 1, {0, 1, 2, 0}, true});    // grouped, asymmetric pads
  CheckConvCase({1, 32, 14, 14, 32, 3, 32, 2, 1, {1, 1, 1, 1}, true});  // depthwise, stride 2
  CheckConvCase({1, 24, 9, 9, 48, 5, 24, 1, 1, {2, 2, 2, 2}, false});   // depthwise multiplier 2
}

TEST_CASE("conv nhwc: kernels without an NHWC form refuse it naming the node", "[conv][nhwc]") {
  const ConvCase k{1, 4, 6, 6, 4, 3, 1, 1, 1, {1, 1, 1, 1}, false};
  std::mt19937 rng(3);
  SECTION("float16") {
    Graph g;
    Node* node = AddConv(g, k, Tensor(DataType::kFloat16, {4, 4, 3, 3}), Tensor(), /*nhwc=*/true);
    g.nodes()[0]->output(0)->set_dtype(DataType::kFloat16);
    node->output(0)->set_dtype(DataType::kFloat16);
    CHECK_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("conv") && Catch::Contains("NHWC"));
  }
  SECTION("high_performance: bfloat16 products") {
    Graph g;
    Node* node = AddConv(g, k, RandomTensor(DataType::kFloat, {4, 4, 3, 3}, rng), Tensor(), /*nhwc=*/true);
    node->attrs().Set("_op_impl_mode", std::string("high_performance"));
    CHECK_THROWS_WITH(CreateCpuKernel(*node), Catch::Contains("conv") && Catch::Contains("NHWC"));
  }
}

struct PoolCase {
  std::string op_type;
  int64_t n, c, h, w, k, stride, dilation;
  std::vector<int64_t> pads;
  bool ceil_mode, exclusive, global;
};

Node* AddPool(Graph& g, const PoolCase& k, DataType dtype, bool nhwc) {
  const std::vector<int64_t> x_dims = {k.n, k.c, k.h, k.w};
  std::vector<int64_t> y_dims = {k.n, k.c, 1, 1};
  if (!k.global) {
    for (size_t a = 0; a < 2; ++a) {
      const int64_t span = x_dims[2 + a] + k.pads[2 * a] + k.pads[2 * a + 1] - k.dilation * (k.k - 1) - 1;
      int64_t out = (k.ceil_mode ? (span + k.stride - 1) / k.stride : span / k.stride) + 1;
      // ONNX/PyTorch: the last window must start inside the input or the begin padding.
      if (k.ceil_mode && (out - 1) * k.stride >= x_dims[2 + a] + k.pads[2 * a]) --out;
      y_dims[2 + a] = out;
    }
  }
  Node* node = g.AddNode(k.op_type, "pool", {g.AddInput("x", dtype, Shape(nhwc ? ToNhwcOrder(x_dims) : x_dims))});
  const std::vector<int64_t> ksize = {1, 1, k.k, k.k}, strides = {1, 1, k.stride, k.stride};
  node->attrs().Set("ksize", nhwc ? ToNhwcOrder(ksize) : ksize);
  node->attrs().Set("strides", nhwc ? ToNhwcOrder(strides) : strides);
  node->attrs().Set("pads", k.pads);
  node->attrs().Set("ceil_mode", k.ceil_mode);
  node->attrs().Set("global_pooling", k.global);
  node->attrs().Set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
  if (k.op_type == "MaxPoolV3") {
    const std::vector<int64_t> dilations = {1, 1, k.dilation, k.dilation};
    node->attrs().Set("dilations", nhwc ? ToNhwcOrder(dilations) : dilations);
  } else {
    node->attrs().Set("exclusive", k.exclusive);
    node->attrs().Set("offset_x", int64_t{0});
  }
  SetOutput(node, 0, dtype, Shape(nhwc ? ToNhwcOrder(y_dims) : y_dims));
  return node;
}

void CheckPoolCase(const PoolCase& k, DataType dtype) {
  std::mt19937 rng(11);
  const Tensor x = RandomTensor(dtype, {k.n, k.c, k.h, k.w}, rng);
  Graph nchw_graph, nhwc_graph;
  const Node* nchw = AddPool(nchw_graph, k, dtype, /*nhwc=*/false);
  const Node* nhwc = AddPool(nhwc_graph, k, dtype, /*nhwc=*/true);
  const Tensor expected = Transposed(RunCpuKernel(*nchw, {x})[0], /*to_nhwc=*/true);
  const Tensor actual = RunCpuKernel(*nhwc, {Transposed(x, /*to_nhwc=*/true)})[0];
  REQUIRE(actual.shape() == expected.shape());
  // Maxima are exact; averages sum in the same precision, perhaps in another order.
  CheckClose(actual, ToDoubles(expected), 1e-6, 1e-7);
}

TEST_CASE("conv nhwc: MaxPoolV3 and AvgPoolV2 (float, double, int8) on NHWC equal the NCHW kernels transposed", "[pool][nhwc]") {
  // op, n, c, h, w, k, stride, dilation, pads, ceil_mode, exclusive, global
  const std::vector<PoolCase> cases = {
      {"MaxPoolV3", 1, 64, 15, 15, 3, 2, 1, {0, 0, 0, 0}, true, true, false},   // squeezenet's
      {"MaxPoolV3", 2, 16, 12, 12, 3, 2, 1, {1, 1, 1, 1}, false, true, false},  // resnet's
      {"MaxPoolV3", 1, 5, 9, 10, 2, 1, 2, {1, 0, 0, 1}, false, true, false},    // dilated, asymmetric pads
      {"MaxPoolV3", 1, 37, 9, 9, 3, 2, 1, {1, 1, 1, 1}, true, true, false},     // channel blocks and a tail
      {"AvgPoolV2", 1, 20, 7, 7, 3, 2, 1, {1, 1, 1, 1}, true, true, false},     // exclusive, ceil
      {"AvgPoolV2", 2, 7, 8, 9, 3, 2, 1, {1, 1, 1, 1}, true, false, false},     // inclusive, ceil overhang
      {"AvgPoolV2", 1, 33, 6, 5, 1, 1, 1, {0, 0, 0, 0}, false, true, true},     // global
  };
  for (const PoolCase& k : cases) {
    INFO(k.op_type << " k " << k.k << " stride " << k.stride << " ceil " << k.ceil_mode);
    CheckPoolCase(k, DataType::kFloat);
    CheckPoolCase(k, DataType::kDouble);
    CheckPoolCase(k, DataType::kInt8);  // quantized TensorFlow models pool NHWC int8
  }
}


// The transposes at the edges of an NHWC region, by the index formula.
Tensor RunTranspose(const Tensor& x, const std::vector<int64_t>& perm) {
  Graph g;
  Node* node = g.AddNode("TransposeD", "transpose", {g.AddInput("x", x.dtype(), x.shape())});
  node->attrs().Set("perm", perm);
  std::vector<int64_t> dims;
  for (int64_t axis : perm) dims.push_back(x.shape().dim(axis));
  SetOutput(node, 0, x.dtype(), Shape(dims));
  return RunCpuKernel(*node, {x})[0];
}

TEST_CASE("conv nhwc: TransposeD to and from NHWC moves every element where the layouts say", "[nhwc][transpose]") {
  std::mt19937 rng(5);
  const std::vector<std::vector<int64_t>> shapes = {
      {2, 3, 5, 7}, {1, 3, 9, 4}, {3, 2, 1, 6}, {1, 4, 6, 6}, {2, 16, 5, 5}, {1, 1, 3, 3}, {2, 37, 3, 1}};
  for (DataType dtype : {DataType::kFloat, DataType::kDouble, DataType::kInt8}) {
    for (const std::vector<int64_t>& dims : shapes) {
      INFO(DataTypeName(dtype) << " " << Shape(dims).ToString());
      const Tensor nchw = RandomTensor(dtype, Shape(dims), rng, -100, 100);
      const Tensor nhwc = RunTranspose(nchw, {0, 2, 3, 1});
      CheckClose(nhwc, ToDoubles(Transposed(nchw, /*to_nhwc=*/true)), 0, 0);
      CheckClose(RunTranspose(nhwc, {0, 3, 1, 2}), ToDoubles(nchw), 0, 0);
    }
  }
}

}  // namespace
