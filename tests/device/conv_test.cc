// Conv2D and Conv2DTranspose (oneDNN) against direct float64 loops.
#include <catch2/catch.hpp>

#include "ge/error.h"
#include "kernel_harness.h"

using namespace ge;
using namespace ge::test;

namespace {

struct ConvCase {
  int64_t n, c, h, w, out_c, kh, kw, groups;
  int64_t sh, sw, dh, dw;
  int64_t pt, pb, pl, pr;
  bool bias;
  bool constant_filter = true;
};

struct ConvResult {
  Tensor actual;
  std::vector<double> expected;
};

ConvResult RunConv(const ConvCase& k, std::mt19937& rng) {
  const int64_t oh = (k.h + k.pt + k.pb - k.dh * (k.kh - 1) - 1) / k.sh + 1;
  const int64_t ow = (k.w + k.pl + k.pr - k.dw * (k.kw - 1) - 1) / k.sw + 1;
  const int64_t cin_g = k.c / k.groups, cout_g = k.out_c / k.groups;
  Tensor x = RandomTensor(DataType::kFloat, {k.n, k.c, k.h, k.w}, rng);
  Tensor w = RandomTensor(DataType::kFloat, {k.out_c, cin_g, k.kh, k.kw}, rng);
  Tensor b = RandomTensor(DataType::kFloat, {k.out_c}, rng);

  Graph g;
  Value* xv = g.AddInput("x", DataType::kFloat, x.shape());
  Value* wv = k.constant_filter ? g.AddConstant("w", w) : g.AddInput("w", DataType::kFloat, w.shape());
  std::vector<Value*> inputs = {xv, wv};
  if (k.bias) inputs.push_back(g.AddConstant("b", b));
  Node* node = g.AddNode("Conv2D", "conv", inputs);
  node->attrs().Set("strides", std::vector<int64_t>{1, 1, k.sh, k.sw});
  node->attrs().Set("pads", std::vector<int64_t>{k.pt, k.pb, k.pl, k.pr});
  node->attrs().Set("dilations", std::vector<int64_t>{1, 1, k.dh, k.dw});
  node->attrs().Set("groups", k.groups);
  node->attrs().Set("data_format", std::string("NCHW"));
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {k.n, k.out_c, oh, ow});

  const auto xd = ToDoubles(x), wd = ToDoubles(w), bd = ToDoubles(b);
  std::vector<double> expected;
  for (int64_t n = 0; n < k.n; ++n)
    for (int64_t oc = 0; oc < k.out_c; ++oc)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t z = 0; z < ow; ++z) {
          double acc = k.bias ? bd[oc] : 0.0;
          const int64_t group = oc / cout_g;
          for (int64_t ic = 0; ic < cin_g; ++ic)
            for (int64_t i = 0; i < k.kh; ++i)
              for (int64_t j = 0; j < k.kw; ++j) {
                const int64_t ih = y * k.sh - k.pt + i * k.dh, iw = z * k.sw - k.pl + j * k.dw;
                if (ih < 0 || ih >= k.h || iw < 0 || iw >= k.w) continue;
                acc += xd[Ravel({n, group * cin_g + ic, ih, iw}, {k.n, k.c, k.h, k.w})] *
                       wd[Ravel({oc, ic, i, j}, {k.out_c, cin_g, k.kh, k.kw})];
              }
          expected.push_back(acc);
        }
  return {RunCpuKernel(*node, {x, k.constant_filter ? Tensor() : w})[0], expected};
}

}  // namespace

TEST_CASE("Conv2D matches direct convolution", "[device][conv]") {
  std::mt19937 rng(10);
  const std::vector<std::pair<std::string, ConvCase>> cases = {
      {"3x3 same", {2, 3, 9, 9, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, false}},
      {"groups, stride 2, asymmetric pads, dilation, bias", {2, 4, 11, 10, 6, 3, 2, 2, 2, 2, 2, 1, 0, 1, 2, 1, true}},
      {"depthwise", {1, 6, 8, 8, 6, 3, 3, 6, 1, 1, 1, 1, 1, 1, 1, 1, true}},
      {"depthwise multiplier 2, stride 2", {1, 4, 7, 7, 8, 3, 3, 4, 2, 2, 1, 1, 1, 0, 1, 0, true}},
      {"1x1 pointwise", {3, 16, 5, 5, 8, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, true}},
      {"runtime filter", {1, 3, 6, 6, 2, 3, 3, 1, 1, 1, 1, 1, 0, 0, 0, 0, true, false}},
  };
  for (const auto& [name, c] : cases) {
    INFO(name);
    ConvResult r = RunConv(c, rng);
    CheckClose(r.actual, r.expected, 1e-5, 1e-5);
  }
}

TEST_CASE("Conv2D rejects inconsistent channels naming the node", "[device][conv]") {
  Graph g;
  Value* x = g.AddInput("x", DataType::kFloat, {1, 3, 5, 5});
  Value* w = g.AddConstant("w", Tensor(DataType::kFloat, {4, 2, 3, 3}));  // expects 2 input channels
  Node* node = g.AddNode("Conv2D", "bad_conv", {x, w});
  node->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  node->attrs().Set("pads", std::vector<int64_t>{0, 0, 0, 0});
  node->attrs().Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
  node->attrs().Set("groups", int64_t{1});
  node->attrs().Set("data_format", std::string("NCHW"));
  node->attrs().Set("offset_x", int64_t{0});
  SetOutput(node, 0, DataType::kFloat, {1, 4, 3, 3});
  CHECK_THROWS_WITH(RunCpuKernel(*node, {}), Catch::Contains("bad_conv") && Catch::Contains("groups"));
  node->attrs().Set("data_format", std::string("HWCN"));
  CHECK_THROWS_WITH(RunCpuKernel(*node, {}), Catch::Contains("data_format"));
}

TEST_CASE("Conv2DTranspose matches scatter-add reference", "[device][conv]") {
  std::mt19937 rng(11);
  struct Case {
    int64_t n, c, h, w, out_c, k, groups, stride, dilation, pad_begin, pad_end, output_padding;
    bool bias;
  };
  for (const Case& k : std::vector<Case>{
           {1, 4, 5, 5, 6, 3, 1, 2, 1, 1, 1, 1, true},   // stride 2, output_padding 1
           {2, 4, 4, 6, 4, 3, 2, 2, 1, 0, 0, 0, true},   // groups 2
           {1, 2, 3, 3, 2, 2, 1, 3, 2, 1, 0, 2, false},  // dilation, asymmetric pads
       }) {
    const int64_t oh = k.stride * (k.h - 1) + k.output_padding + k.dilation * (k.k - 1) + 1 - k.pad_begin - k.pad_end;
    const int64_t ow = k.stride * (k.w - 1) + k.output_padding + k.dilation * (k.k - 1) + 1 - k.pad_begin - k.pad_end;
    const int64_t cin_g = k.c / k.groups, cout_g = k.out_c / k.groups;
    Tensor x = RandomTensor(DataType::kFloat, {k.n, k.c, k.h, k.w}, rng);
    Tensor w = RandomTensor(DataType::kFloat, {k.c, cout_g, k.k, k.k}, rng);
    Tensor b = RandomTensor(DataType::kFloat, {k.out_c}, rng);
    Graph g;
    Value* size = g.AddConstant("size", Tensor::FromVector<int32_t>(DataType::kInt32, {4},
                                                                    {int32_t(k.n), int32_t(k.out_c), int32_t(oh),
                                                                     int32_t(ow)}));
    std::vector<Value*> inputs = {size, g.AddInput("x", DataType::kFloat, x.shape()), g.AddConstant("w", w)};
    if (k.bias) inputs.push_back(g.AddConstant("b", b));
    Node* node = g.AddNode("Conv2DTranspose", "deconv", inputs);
    node->attrs().Set("strides", std::vector<int64_t>{1, 1, k.stride, k.stride});
    node->attrs().Set("pads", std::vector<int64_t>{k.pad_begin, k.pad_end, k.pad_begin, k.pad_end});
    node->attrs().Set("dilations", std::vector<int64_t>{1, 1, k.dilation, k.dilation});
    node->attrs().Set("groups", k.groups);
    node->attrs().Set("data_format", std::string("NCHW"));
    node->attrs().Set("output_padding", std::vector<int64_t>{0, 0, k.output_padding, k.output_padding});
    node->attrs().Set("offset_x", int64_t{0});
    SetOutput(node, 0, DataType::kFloat, {k.n, k.out_c, oh, ow});

    const auto xd = ToDoubles(x), wd = ToDoubles(w), bd = ToDoubles(b);
    const std::vector<int64_t> out_dims = {k.n, k.out_c, oh, ow};
    std::vector<double> expected(k.n * k.out_c * oh * ow, 0.0);
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t oc = 0; oc < k.out_c; ++oc)
        for (int64_t y = 0; y < oh; ++y)
          for (int64_t z = 0; z < ow; ++z) expected[Ravel({n, oc, y, z}, out_dims)] = k.bias ? bd[oc] : 0.0;
    for (int64_t n = 0; n < k.n; ++n)
      for (int64_t ic = 0; ic < k.c; ++ic)
        for (int64_t ih = 0; ih < k.h; ++ih)
          for (int64_t iw = 0; iw < k.w; ++iw)
            for (int64_t oc = 0; oc < cout_g; ++oc)
              for (int64_t i = 0; i < k.k; ++i)
                for (int64_t j = 0; j < k.k; ++j) {
                  const int64_t y = ih * k.stride - k.pad_begin + i * k.dilation;
                  const int64_t z = iw * k.stride - k.pad_begin + j * k.dilation;
                  if (y < 0 || y >= oh || z < 0 || z >= ow) continue;
                  const int64_t out_channel = (ic / cin_g) * cout_g + oc;
                  expected[Ravel({n, out_channel, y, z}, out_dims)] +=
                      xd[Ravel({n, ic, ih, iw}, {k.n, k.c, k.h, k.w})] * wd[Ravel({ic, oc, i, j}, {k.c, cout_g, k.k, k.k})];
                }
    INFO("stride " << k.stride << " groups " << k.groups << " output_padding " << k.output_padding);
    CheckClose(RunCpuKernel(*node, {Tensor(), x})[0], expected, 1e-5, 1e-5);
  }
}
