// Prepacked weights: a kernel offered its constant already packed in the
// layout it wants uses those bytes in place and computes the same result; an
// offer in another layout or of another size is ignored. Kernels that pack
// the same constant into the same layout share one packed copy while any of
// them lives.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <vector>

#include "device/kernel.h"
#include "device/prepacked_weights.h"
#include "kernel_harness.h"

namespace ge::test {
namespace {

// A float32 3x3 Conv2D with a constant filter: oneDNN packs the filter.
struct ConvGraph {
  Graph graph{"conv"};
  Node* node = nullptr;
  Tensor x;
};

void BuildConv(ConvGraph& g, unsigned seed = 7) {
  std::mt19937 rng(seed);
  const Tensor filter = RandomTensor(DataType::kFloat, Shape{32, 16, 3, 3}, rng);
  g.x = RandomTensor(DataType::kFloat, Shape{1, 16, 12, 12}, rng);
  g.node = g.graph.AddNode("Conv2D", "conv",
                           {g.graph.AddInput("x", DataType::kFloat, g.x.shape()), g.graph.AddConstant("w", filter)});
  g.node->attrs().Set("strides", std::vector<int64_t>{1, 1, 1, 1});
  g.node->attrs().Set("dilations", std::vector<int64_t>{1, 1, 1, 1});
  g.node->attrs().Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  g.node->attrs().Set("groups", int64_t{1});
  g.node->attrs().Set("data_format", std::string("NCHW"));
  g.node->attrs().Set("offset_x", int64_t{0});
  SetOutput(g.node, 0, DataType::kFloat, Shape{1, 32, 12, 12});
}

TEST_CASE("prepacked weights: a kernel uses an offered copy in its layout in place", "[prepacked]") {
  ConvGraph g;
  BuildConv(g);
  const std::unique_ptr<device::Kernel> packing = CreateCpuKernel(*g.node);
  const std::vector<device::Kernel::PackedInput> packed = packing->PackedInputs();
  REQUIRE(packed.size() == 1);
  CHECK(packed[0].input == 1);
  REQUIRE(packed[0].bytes >= g.node->input(1)->constant()->nbytes());
  // A copy somewhere else, so that using it in place is visible.
  std::vector<std::byte> copy(packed[0].bytes);
  std::memcpy(copy.data(), packed[0].data, copy.size());
  const void* original = g.node->input(1)->constant()->data();

  device::PrepackedWeights offered;
  offered.Offer(original, packed[0].layout, copy.data(), copy.size());
  std::unique_ptr<device::Kernel> reusing;
  {
    const device::ScopedPrepackedWeights offer(offered);
    reusing = CreateCpuKernel(*g.node);
  }
  CHECK(device::OfferedPrepackedWeights() == nullptr);
  REQUIRE(reusing->PackedInputs().size() == 1);
  CHECK(reusing->PackedInputs()[0].data == copy.data());

  const std::vector<Tensor> expected = RunKernel(*packing, *g.node, {g.x, Tensor()});
  const std::vector<Tensor> actual = RunKernel(*reusing, *g.node, {g.x, Tensor()});
  REQUIRE(actual[0].nbytes() == expected[0].nbytes());
  CHECK(std::memcmp(actual[0].data(), expected[0].data(), actual[0].nbytes()) == 0);
}

TEST_CASE("prepacked weights: offers in another layout, of another size or of another constant are ignored",
          "[prepacked]") {
  ConvGraph g;
  BuildConv(g);
  const std::unique_ptr<device::Kernel> packing = CreateCpuKernel(*g.node);
  const device::Kernel::PackedInput packed = packing->PackedInputs().at(0);
  std::vector<std::byte> copy(packed.bytes);
  const void* original = g.node->input(1)->constant()->data();
  const Tensor other_constant(DataType::kFloat, Shape{4});

  device::PrepackedWeights offered;
  offered.Offer(original, packed.layout + "x", copy.data(), copy.size());
  offered.Offer(original, packed.layout, copy.data(), copy.size() - 1);
  offered.Offer(other_constant.data(), packed.layout, copy.data(), copy.size());
  CHECK(offered.Find(original, packed.layout, packed.bytes) == nullptr);
  const device::ScopedPrepackedWeights offer(offered);
  const std::unique_ptr<device::Kernel> kernel = CreateCpuKernel(*g.node);
  CHECK(kernel->PackedInputs().at(0).data != copy.data());
}

TEST_CASE("prepacked weights: kernels packing one constant share a copy while any of them lives", "[prepacked]") {
  ConvGraph g, other;
  BuildConv(g);
  BuildConv(other, 8);  // another filter of the same shape
  auto first = CreateCpuKernel(*g.node);
  auto second = CreateCpuKernel(*g.node);
  const auto other_kernel = CreateCpuKernel(*other.node);
  const void* shared = first->PackedInputs().at(0).data;
  CHECK(second->PackedInputs().at(0).data == shared);
  CHECK(other_kernel->PackedInputs().at(0).data != shared);

  const std::vector<Tensor> expected = RunKernel(*first, *g.node, {g.x, Tensor()});
  const auto same_bits = [&](const device::Kernel& kernel) {
    const std::vector<Tensor> actual = RunKernel(kernel, *g.node, {g.x, Tensor()});
    return std::memcmp(actual[0].data(), expected[0].data(), actual[0].nbytes()) == 0;
  };
  CHECK(same_bits(*second));
  first.reset();  // the copy lives on with the second kernel
  CHECK(same_bits(*second));
  second.reset();  // gone: the next kernel packs afresh
  const auto third = CreateCpuKernel(*g.node);
  CHECK(same_bits(*third));
}

}  // namespace
}  // namespace ge::test
