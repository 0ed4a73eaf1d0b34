// Float32 Conv2D/Conv3D against float64 loops, at the sizes small_conv.cc
// takes (a few positions and channels, as a streaming model's) and just
// past them (oneDNN): both layouts, strides, dilations, asymmetric pads,
// channel counts that do not fill a block of 16, position counts that do
// not fill a block of 4, and the fused addend and activations.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include "graph/conv_post_ops.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

struct SmallConvCase {
  std::string name;
  int64_t n, c, out_c;
  std::vector<int64_t> in, kernel, stride, dilation, pads;  // per spatial axis; pads: (begin, end) per axis
  bool channels_last = false;
  bool bias = true;
  bool add = false;
  std::string activation;  // "", kFusedRelu or kFusedClip (bounds -0.5, 0.5)
};

std::vector<int64_t> OutSpatial(const SmallConvCase& k) {
  std::vector<int64_t> out;
  for (size_t a = 0; a < k.in.size(); ++a) {
    const int64_t span = k.in[a] + k.pads[2 * a] + k.pads[2 * a + 1] - k.dilation[a] * (k.kernel[a] - 1) - 1;
    out.push_back(span / k.stride[a] + 1);
  }
  return out;
}

// [n, c, spatial...] in the case's layout.
std::vector<int64_t> Dims(const SmallConvCase& k, int64_t channels, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims = {k.n};
  if (!k.channels_last) dims.push_back(channels);
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  if (k.channels_last) dims.push_back(channels);
  return dims;
}

// A window attribute over every axis of the layout: 1 for n and c.
std::vector<int64_t> WindowAttr(const SmallConvCase& k, const std::vector<int64_t>& spatial) {
  return Dims(k, 1, spatial);
}

int64_t Flat(const SmallConvCase& k, int64_t n, int64_t c, int64_t channels, const std::vector<int64_t>& at,
             const std::vector<int64_t>& spatial) {
  std::vector<int64_t> index = {n};
  if (!k.channels_last) index.push_back(c);
  index.insert(index.end(), at.begin(), at.end());
  if (k.channels_last) index.push_back(c);
  return Ravel(index, Dims(k, channels, spatial));
}

// Every spatial position of `dims`, row-major.
std::vector<std::vector<int64_t>> Positions(const std::vector<int64_t>& dims) {
  int64_t count = 1;
  for (int64_t d : dims) count *= d;
  std::vector<std::vector<int64_t>> all;
  for (int64_t flat = 0; flat < count; ++flat) all.push_back(Unravel(flat, dims));
  return all;
}

void CheckCase(const SmallConvCase& k) {
  INFO(k.name);
  std::mt19937 rng(11);
  const std::vector<int64_t> out = OutSpatial(k);
  std::vector<int64_t> filter_dims = {k.out_c, k.c};
  filter_dims.insert(filter_dims.end(), k.kernel.begin(), k.kernel.end());
  const Tensor x = RandomTensor(DataType::kFloat, Shape(Dims(k, k.c, k.in)), rng);
  const Tensor w = RandomTensor(DataType::kFloat, Shape(filter_dims), rng);
  const Tensor b = RandomTensor(DataType::kFloat, {k.out_c}, rng);
  const Tensor addend = RandomTensor(DataType::kFloat, Shape(Dims(k, k.out_c, out)), rng);

  Graph g;
  std::vector<Value*> inputs = {g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w", w)};
  inputs.push_back(k.bias ? g.AddConstant("b", b) : nullptr);
  Node* node = g.AddNode(k.in.size() == 3 ? "Conv3D" : "Conv2D", "small", {});
  for (size_t i = 0; i < inputs.size(); ++i) node->SetInput(i, inputs[i]);
  if (k.add) {
    node->SetInput(kConvFusedAddend, g.AddInput("addend", DataType::kFloat, addend.shape()));
    node->attrs().Set(kFusedAddAttr, true);
  }
  if (!k.activation.empty()) node->attrs().Set(kFusedActivationAttr, k.activation);
  if (k.activation == kFusedClip) {
    node->attrs().Set(kFusedClipMinAttr, -0.5f);
    node->attrs().Set(kFusedClipMaxAttr, 0.5f);
  }
  node->attrs().Set("strides", WindowAttr(k, k.stride));
  node->attrs().Set("dilations", WindowAttr(k, k.dilation));
  node->attrs().Set("pads", k.pads);
  node->attrs().Set("groups", int64_t{1});
  const bool volumetric = k.in.size() == 3;
  node->attrs().Set("data_format", std::string(k.channels_last ? "NHWC" : volumetric ? "NCDHW" : "NCHW"));
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, Shape(Dims(k, k.out_c, out)));

  const std::vector<double> xd = ToDoubles(x), wd = ToDoubles(w), bd = ToDoubles(b), ad = ToDoubles(addend);
  std::vector<double> expected(static_cast<size_t>(addend.num_elements()));
  const std::vector<std::vector<int64_t>> taps = Positions(k.kernel);
  for (int64_t n = 0; n < k.n; ++n) {
    for (int64_t oc = 0; oc < k.out_c; ++oc) {
      for (const std::vector<int64_t>& o : Positions(out)) {
        double acc = k.bias ? bd[oc] : 0.0;
        for (int64_t ic = 0; ic < k.c; ++ic) {
          for (size_t t = 0; t < taps.size(); ++t) {
            std::vector<int64_t> at;
            for (size_t a = 0; a < o.size(); ++a) at.push_back(o[a] * k.stride[a] - k.pads[2 * a] + taps[t][a] * k.dilation[a]);
            bool inside = true;
            for (size_t a = 0; a < at.size(); ++a) inside = inside && at[a] >= 0 && at[a] < k.in[a];
            if (inside) acc += xd[Flat(k, n, ic, k.c, at, k.in)] * wd[(oc * k.c + ic) * taps.size() + t];
          }
        }
        const int64_t y_at = Flat(k, n, oc, k.out_c, o, out);
        if (k.add) acc += ad[y_at];
        if (k.activation == kFusedRelu) acc = std::max(acc, 0.0);
        if (k.activation == kFusedClip) acc = std::min(std::max(acc, -0.5), 0.5);
        expected[y_at] = acc;
      }
    }
  }
  std::vector<Tensor> run_inputs = {x};
  if (k.add) run_inputs = {x, Tensor(), Tensor(), Tensor(), addend};
  const Tensor actual = RunCpuKernel(*node, run_inputs)[0];
  REQUIRE(actual.shape() == Shape(Dims(k, k.out_c, out)));
  CheckClose(actual, expected, 1e-5, 1e-5);
}

}  // namespace

TEST_CASE("small convolutions match float64 loops in both layouts", "[device][conv][small_conv]") {
  for (bool channels_last : {false, true}) {
    // name, n, c, out_c, in, kernel, stride, dilation, pads
    const std::vector<SmallConvCase> cases = {
        {"streaming encoder: 64 -> 64 channels over 4 frames", 1, 64, 64, {1, 4}, {1, 3}, {1, 1}, {1, 1}, {0, 0, 1, 1}},
        {"front end: 1 -> 20 channels, window 16, stride 8", 1, 1, 20, {1, 71}, {1, 16}, {1, 8}, {1, 1}, {0, 0, 0, 0}},
        {"batch 2, 3x3, stride 2, asymmetric pads", 2, 5, 7, {7, 6}, {3, 3}, {2, 2}, {1, 1}, {1, 0, 2, 1}},
        {"dilation 2 wider than the input", 1, 3, 17, {5, 5}, {3, 3}, {1, 1}, {2, 2}, {2, 2, 2, 2}},
        {"pointwise, 33 channels", 3, 9, 33, {3, 3}, {1, 1}, {1, 1}, {1, 1}, {0, 0, 0, 0}},
        {"pads only: every tap outside", 1, 2, 3, {1, 1}, {3, 3}, {3, 3}, {1, 1}, {2, 2, 2, 2}},
    };
    for (SmallConvCase c : cases) {
      c.channels_last = channels_last;
      c.name += channels_last ? ", NHWC" : ", NCHW";
      CheckCase(c);
    }
  }
}

TEST_CASE("small convolutions apply the fused addend and activations in order", "[device][conv][small_conv]") {
  for (bool channels_last : {false, true}) {
    for (bool add : {false, true}) {
      for (std::string activation : {"", kFusedRelu, kFusedClip}) {
        SmallConvCase c{"", 2, 6, 18, {3, 5}, {3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}};
        c.channels_last = channels_last;
        c.add = add;
        c.activation = activation;
        c.bias = activation != kFusedRelu;
        c.name = fmt::format("{}, add {}, activation '{}', bias {}", channels_last ? "NHWC" : "NCHW", add, activation,
                             c.bias);
        CheckCase(c);
      }
    }
  }
}

TEST_CASE("small Conv3D and the first size oneDNN takes match float64 loops", "[device][conv][small_conv]") {
  CheckCase({"Conv3D 4 -> 10, 3x3x3, stride 2", 1, 4, 10, {5, 4, 6}, {3, 3, 3}, {2, 1, 2}, {1, 1, 1},
             {1, 0, 1, 1, 1, 0}});
  // 1 * 64 * 128 * 3 * 12 = 294,912 products: past small_conv.cc's 262,144.
  CheckCase({"oneDNN: 64 -> 128 channels over 12 frames", 1, 64, 128, {1, 12}, {1, 3}, {1, 1}, {1, 1}, {0, 0, 1, 1}});
}
