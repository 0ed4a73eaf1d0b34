// AclOpKernel: nodes of GraphBuilder graphs run through the ACL op API on
// device memory, checked against float64 references and the CPU device.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include <catch2/catch.hpp>

#include "device/acl/acl_op_kernel.h"
#include "device/acl/emulator/fault_injection.h"
#include "device_support.h"
#include "ge/builder.h"
#include "test_support.h"

namespace ge::test {
namespace {

// Runs node `node_name` of `graph` (which computes just that node; `inputs`
// are the node's inputs, empty for absent ones, the others the graph inputs)
// on ACL device 0, and checks the result against `expected` (float64) and
// against the CPU device's run of the graph.
void CheckAclNode(const Graph& graph, const std::string& node_name, const std::vector<Tensor>& inputs,
                  const std::vector<double>& expected) {
  const Node* node = graph.FindNode(node_name);
  REQUIRE(node != nullptr);
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  std::unique_ptr<device::Stream> stream = device->CreateStream();
  std::vector<Tensor> acl = RunOnDevice(*device, *stream, *node, inputs);
  REQUIRE(acl.size() == 1);
  REQUIRE(acl[0].num_elements() == static_cast<int64_t>(expected.size()));
  for (size_t i = 0; i < expected.size(); ++i) {
    INFO("element " << i);
    CHECK(acl[0].data_as<float>()[i] == Approx(expected[i]).epsilon(1e-5).margin(1e-6));
  }
  std::vector<Tensor> graph_inputs;
  std::copy_if(inputs.begin(), inputs.end(), std::back_inserter(graph_inputs),
               [](const Tensor& input) { return !input.empty(); });
  std::vector<Tensor> cpu = RunOnCpu(graph, graph_inputs);
  CHECK(MaxDifference(acl[0], cpu[0]) <= 1e-6);
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

TEST_CASE("AclOpKernel runs Add with broadcasting", "[acl]") {
  GraphBuilder b("add");
  Value* x = b.Input("x", DataType::kFloat, {2, 3});
  Value* y = b.Input("y", DataType::kFloat, {3});
  b.Output(b.Add(x, y, "sum"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = Tensor::FromVector<float>(DataType::kFloat, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor ys = Tensor::FromVector<float>(DataType::kFloat, {3}, {0.5f, -10, 100});
  CheckAclNode(*graph, "sum", {xs, ys}, {1.5, -8, 103, 4.5, -5, 106});
}

TEST_CASE("AclOpKernel runs Relu", "[acl]") {
  GraphBuilder b("relu");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {2, 2}), "relu"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = Tensor::FromVector<float>(DataType::kFloat, {2, 2}, {-1.5f, 0, 2.25f, -0.0625f});
  CheckAclNode(*graph, "relu", {xs}, {0, 0, 2.25, 0});
}

TEST_CASE("AclOpKernel hands float attributes to ACL", "[acl]") {
  GraphBuilder b("leaky");
  Value* x = b.Input("x", DataType::kFloat, {4});
  b.Output(b.Op("LeakyRelu", {x}, {{"negative_slope", 0.25f}}, 1, "leaky")[0]);
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = Tensor::FromVector<float>(DataType::kFloat, {4}, {-4, -1, 0, 3});
  CheckAclNode(*graph, "leaky", {xs}, {-1, -0.25, 0, 3});
}

TEST_CASE("AclOpKernel runs Conv2D with bias and padding and stride", "[acl]") {
  const int64_t n = 1, c = 2, h = 5, w = 6, k = 3, cout = 3, stride = 2, pad = 1;
  GraphBuilder b("conv");
  Value* x = b.Input("x", DataType::kFloat, {n, c, h, w});
  Value* filter = b.Input("filter", DataType::kFloat, {cout, c, k, k});
  Value* bias = b.Input("bias", DataType::kFloat, {cout});
  Conv2DOptions options;
  options.strides = {stride, stride};
  options.pads = {pad, pad, pad, pad};
  b.Output(b.Conv2D(x, filter, bias, options, "conv"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = PseudoRandomTensor({n, c, h, w}, 1);
  Tensor fs = PseudoRandomTensor({cout, c, k, k}, 2);
  Tensor bs = PseudoRandomTensor({cout}, 3);

  const int64_t oh = (h + 2 * pad - k) / stride + 1, ow = (w + 2 * pad - k) / stride + 1;
  std::vector<double> expected;
  for (int64_t o = 0; o < cout; ++o) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t xo = 0; xo < ow; ++xo) {
        double sum = bs.data_as<float>()[o];
        for (int64_t ci = 0; ci < c; ++ci) {
          for (int64_t ky = 0; ky < k; ++ky) {
            for (int64_t kx = 0; kx < k; ++kx) {
              int64_t iy = y * stride - pad + ky, ix = xo * stride - pad + kx;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              sum += double(xs.data_as<float>()[(ci * h + iy) * w + ix]) *
                     fs.data_as<float>()[((o * c + ci) * k + ky) * k + kx];
            }
          }
        }
        expected.push_back(sum);
      }
    }
  }
  CheckAclNode(*graph, "conv", {xs, fs, bs}, expected);
}

TEST_CASE("AclOpKernel runs MatMulV2 with transposed b and bias", "[acl]") {
  const int64_t m = 3, k = 4, n = 5;
  GraphBuilder b("matmul");
  Value* a = b.Input("a", DataType::kFloat, {m, k});
  Value* bt = b.Input("b", DataType::kFloat, {n, k});
  Value* bias = b.Input("bias", DataType::kFloat, {n});
  b.Output(b.MatMul(a, bt, bias, false, true, "mm"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor as = PseudoRandomTensor({m, k}, 4), bs = PseudoRandomTensor({n, k}, 5), cs = PseudoRandomTensor({n}, 6);
  std::vector<double> expected;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = cs.data_as<float>()[j];
      for (int64_t p = 0; p < k; ++p) sum += double(as.data_as<float>()[i * k + p]) * bs.data_as<float>()[j * k + p];
      expected.push_back(sum);
    }
  }
  CheckAclNode(*graph, "mm", {as, bs, cs}, expected);
}

TEST_CASE("AclOpKernel passes absent optional inputs as undefined descriptors", "[acl]") {
  // MatMulV2's bias and offset_w are absent: nullptr inputs of the node.
  GraphBuilder b("no_bias");
  Value* a = b.Input("a", DataType::kFloat, {2, 2});
  Value* m = b.Input("m", DataType::kFloat, {2, 2});
  b.Output(b.Op("MatMulV2", {a, m, nullptr, nullptr}, {}, 1, "mm_no_bias")[0]);
  std::unique_ptr<Graph> graph = b.Build();
  REQUIRE(graph->FindNode("mm_no_bias")->num_inputs() == 4);
  Tensor as = Tensor::FromVector<float>(DataType::kFloat, {2, 2}, {1, 2, 3, 4});
  Tensor ms = Tensor::FromVector<float>(DataType::kFloat, {2, 2}, {5, 6, 7, 8});
  CheckAclNode(*graph, "mm_no_bias", {as, ms, Tensor(), Tensor()}, {19, 22, 43, 50});
}

TEST_CASE("AclOpKernel runs SoftmaxV2 over the last axis", "[acl]") {
  const int64_t rows = 3, cols = 7;
  GraphBuilder b("softmax");
  b.Output(b.Softmax(b.Input("x", DataType::kFloat, {rows, cols}), -1, "softmax"));
  std::unique_ptr<Graph> graph = b.Build();
  Tensor xs = PseudoRandomTensor({rows, cols}, 7);
  std::vector<double> expected;
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = xs.data_as<float>() + r * cols;
    double max = *std::max_element(row, row + cols), total = 0;
    for (int64_t i = 0; i < cols; ++i) total += std::exp(double(row[i]) - max);
    for (int64_t i = 0; i < cols; ++i) expected.push_back(std::exp(double(row[i]) - max) / total);
  }
  CheckAclNode(*graph, "softmax", {xs}, expected);
}

TEST_CASE("AclOpKernel refuses subgraph and tensor attributes naming the node", "[acl]") {
  GraphBuilder b("attrs");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {2}), "odd"));
  std::unique_ptr<Graph> graph = b.Build();
  Node* node = graph->FindNode("odd");
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);  // keeps ACL initialized

  node->attrs().Set("body", std::shared_ptr<const Graph>(std::make_unique<Graph>("body")));
  auto [graph_code, graph_message] = ErrorOf([&] { device::acl::AclOpKernel kernel(*node); });
  CHECK(graph_code == ErrorCode::kUnsupported);
  CHECK_THAT(graph_message, Catch::Contains("odd") && Catch::Contains("body") && Catch::Contains("graph"));

  node->attrs().Erase("body");
  node->attrs().Set("table", Tensor(DataType::kFloat, {2}));
  auto [tensor_code, tensor_message] = ErrorOf([&] { device::acl::AclOpKernel kernel(*node); });
  CHECK(tensor_code == ErrorCode::kUnsupported);
  CHECK_THAT(tensor_message, Catch::Contains("odd") && Catch::Contains("table"));
}

TEST_CASE("AclOpKernel refuses an unknown data_format naming the valid ones", "[acl]") {
  GraphBuilder b("format");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {1, 1, 2, 2}), "relu"));
  std::unique_ptr<Graph> graph = b.Build();
  Node* node = graph->FindNode("relu");
  node->attrs().Set("data_format", std::string("CHWN"));
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  auto [code, message] = ErrorOf([&] { device::acl::AclOpKernel kernel(*node); });
  CHECK(code == ErrorCode::kUnsupported);
  CHECK_THAT(message, Catch::Contains("relu") && Catch::Contains("CHWN") && Catch::Contains("NCHW"));
}

TEST_CASE("AclOpKernel refuses a node carrying ops the CPU fused into it", "[acl]") {
  GraphBuilder b("fused");
  b.Output(b.Relu(b.Input("x", DataType::kFloat, {1, 1, 2, 2}), "conv_like"));
  std::unique_ptr<Graph> graph = b.Build();
  Node* node = graph->FindNode("conv_like");
  node->attrs().Set("_fused_activation", std::string("Relu"));
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  auto [code, message] = ErrorOf([&] { device::acl::AclOpKernel kernel(*node); });
  CHECK(code == ErrorCode::kUnsupported);
  CHECK_THAT(message, Catch::Contains("conv_like") && Catch::Contains("_fused_activation") &&
                          Catch::Contains("conv_post_op_fusion"));
}

}  // namespace
}  // namespace ge::test
