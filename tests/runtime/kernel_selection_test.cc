// Kernel selection against a device whose registry the test controls.
#include <catch2/catch.hpp>

#include "device/device.h"
#include "ge/builder.h"
#include "ge/error.h"
#include "runtime/compile/kernel_selection.h"

namespace {

class NoOpKernel final : public ge::device::Kernel {
 public:
  void Run(const ge::device::KernelContext&) const override {}
};

// A device that offers only what the test registers; it never runs anything.
class RegistryOnlyDevice final : public ge::device::Device {
 public:
  std::string name() const override { return "fake"; }
  bool host_memory() const override { return true; }
  ge::device::Allocator& allocator() override { throw ge::Error(ge::ErrorCode::kInternal, "not used"); }
  std::unique_ptr<ge::device::Stream> CreateStream() override { return nullptr; }
  std::unique_ptr<ge::device::Event> CreateEvent() override { return nullptr; }
  void CopyToDevice(void*, const void*, size_t, ge::device::Stream&) override {}
  void CopyToHost(void*, const void*, size_t, ge::device::Stream&) override {}
  const ge::device::KernelRegistry& kernels() const override { return registry; }

  ge::device::KernelRegistry registry;
};

ge::device::KernelDef ReluDef(std::vector<std::string> modes) {
  return {"Relu", {ge::DataType::kFloat16}, std::move(modes),
          [](const ge::Node&) { return std::make_unique<NoOpKernel>(); }};
}

}  // namespace

TEST_CASE("kernel selection names the node, op and dtype it has no kernel for", "[kernel_selection]") {
  ge::GraphBuilder b("g");
  ge::Value* relu = b.Relu(b.Input("x", ge::DataType::kFloat, {2}), "act");
  RegistryOnlyDevice device;
  device.registry.Register(ReluDef({}));
  try {
    ge::runtime::SelectKernel(device, *relu->producer());
    FAIL("selected a kernel the device does not have");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kUnsupported);
    CHECK_THAT(error.what(), Catch::Contains("'act'") && Catch::Contains("Relu") && Catch::Contains("float32") &&
                                 Catch::Contains("float16"));
  }
}

TEST_CASE("kernel selection runs the impl mode the node records, else the kernel default", "[kernel_selection]") {
  ge::GraphBuilder b("g");
  ge::Value* relu = b.Relu(b.Input("x", ge::DataType::kFloat16, {2}), "act");
  RegistryOnlyDevice device;
  device.registry.Register(ReluDef({"high_precision", "high_performance"}));
  ge::Node& node = *relu->producer();
  CHECK(ge::runtime::SelectKernel(device, node).impl_mode == "high_precision");
  node.attrs().Set("_op_impl_mode", std::string("high_performance"));
  ge::runtime::SelectedKernel selected = ge::runtime::SelectKernel(device, node);
  CHECK(selected.impl_mode == "high_performance");
  CHECK(selected.kernel != nullptr);
  node.attrs().Set("_op_impl_mode", std::string("super_performance"));
  try {
    ge::runtime::SelectKernel(device, node);
    FAIL("ran a mode the kernel does not implement");
  } catch (const ge::Error& error) {
    CHECK(error.code() == ge::ErrorCode::kUnsupported);
    CHECK_THAT(error.what(), Catch::Contains("'act'") && Catch::Contains("super_performance") &&
                                 Catch::Contains("high_precision, high_performance"));
  }
}
