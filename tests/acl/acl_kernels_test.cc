// The Ascend device's kernel declaration (device/acl/acl_kernels.h): the
// schema op set less the op types the runtime handles itself, at least every
// (op type, dtype) a CPU kernel can be selected for, and what becomes of a
// declared op the ACL op library cannot run.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "device/acl/acl_device.h"
#include "device/acl/acl_kernels.h"
#include "device/acl/emulator/fault_injection.h"
#include "device/device.h"
#include "device_support.h"
#include "graph/op_schema.h"
#include "runtime/dynamic/control_flow.h"
#include "test_support.h"

namespace ge::test {
namespace {

using device::acl::AclKernels;
using device::acl::HostHandledOpTypes;
using device::acl::KernelSelectionDtypes;

bool HostHandled(const std::string& op_type) {
  const std::vector<std::string_view>& excluded = HostHandledOpTypes();
  return std::find(excluded.begin(), excluded.end(), op_type) != excluded.end();
}

// Whether the schema's dtype check (the verifier's, run on every node before
// kernel selection) lets a node of `op_type` have `dtype` where kernel
// selection reads it: at input 0, or at output 0 of a node without input 0.
// Derived from OpSchema::CheckDtypes, independently of KernelSelectionDtypes.
bool SchemaAdmits(const std::string& op_type, DataType dtype) {
  const OpSchema* schema = OpRegistry::Global().Find(op_type);
  if (schema == nullptr) return true;  // the CPU's kernel counts: the Ascend device must have it too
  const auto admits = [&](const Node& probe) {
    try {
      schema->CheckDtypes(probe);
      return true;
    } catch (const Error&) {
      return false;
    }
  };
  Graph graph("probe");
  if (!schema->inputs().empty()) {
    Node* with_input = graph.AddNode(op_type, "with_input", {graph.AddInput("x", dtype, {1})});
    if (admits(*with_input)) return true;
  }
  Node* without_input = graph.AddNode(op_type, "without_input", {});
  without_input->output(0)->set_dtype(dtype);
  return admits(*without_input);
}

std::string PairName(const std::string& op_type, DataType dtype) {
  return op_type + " " + std::string(DataTypeName(dtype));
}

TEST_CASE("The Ascend device declares every op type and dtype a CPU kernel can be selected for", "[acl]") {
  std::unique_ptr<device::Device> ascend = device::CreateAclDevice(0);
  std::vector<std::string> lost;
  std::vector<std::string> refused_by_schema;  // CPU kernels no node can reach: not needed on the device
  size_t pairs = 0;
  for (const device::KernelDef* cpu : device::CpuDevice().kernels().All()) {
    for (DataType dtype : cpu->dtypes) {
      ++pairs;
      if (ascend->kernels().Find(cpu->op_type, dtype) != nullptr) continue;
      (SchemaAdmits(cpu->op_type, dtype) ? lost : refused_by_schema).push_back(PairName(cpu->op_type, dtype));
    }
  }
  CHECK(pairs > 1000);  // the CPU registry really was read
  INFO("CPU pairs the schema refuses, so no model has them: " << Catch::Detail::stringify(refused_by_schema));
  INFO("CPU pairs the Ascend device lost: " << Catch::Detail::stringify(lost));
  CHECK(lost.empty());
}

TEST_CASE("The Ascend device declares the schema op types less the host-handled ones", "[acl]") {
  std::unique_ptr<device::Device> ascend = device::CreateAclDevice(0);
  std::set<std::string> declared;
  for (const device::KernelDef* def : ascend->kernels().All()) {
    declared.insert(def->op_type);
    INFO(def->op_type);
    CHECK(def->impl_modes.empty());  // ACL picks modes per op type from the compile options
    const OpSchema* schema = OpRegistry::Global().Find(def->op_type);
    REQUIRE(schema != nullptr);
    CHECK(def->dtypes == KernelSelectionDtypes(*schema));
  }
  std::set<std::string> expected;
  for (const std::string& op_type : OpRegistry::Global().OpTypes()) {
    if (!HostHandled(op_type)) expected.insert(op_type);
  }
  CHECK(declared == expected);
  CHECK(declared.size() > 150);
  // Ops the CPU has no kernel for would be declared too; today the schema and
  // the CPU kernels cover the same op types (docs/op-set.md), so none is.
  for (const std::string& op_type : declared) {
    INFO(op_type);
    CHECK(device::CpuDevice().kernels().Supports(op_type));
  }
}

TEST_CASE("Graph sources and control flow are not Ascend kernels", "[acl]") {
  std::unique_ptr<device::Device> ascend = device::CreateAclDevice(0);
  for (const char* op_type : {"Data", "Const", "If", "Loop", "Scan"}) {
    INFO(op_type);
    CHECK(HostHandled(op_type));
    CHECK_FALSE(ascend->kernels().Supports(op_type));
  }
  // The list names schema op types only, and follows the runtime's own test
  // for control flow.
  for (std::string_view op_type : HostHandledOpTypes()) {
    INFO(op_type);
    CHECK(OpRegistry::Global().Find(op_type) != nullptr);
  }
  for (const std::string& op_type : OpRegistry::Global().OpTypes()) {
    if (runtime::ControlFlowOp::Handles(op_type)) {
      INFO(op_type);
      CHECK(HostHandled(op_type));
    }
  }
  // Structural ops that do run as kernels (views on the CPU) stay declared.
  for (const char* op_type : {"Identity", "Reshape", "Shape", "Cast"}) {
    INFO(op_type);
    CHECK(ascend->kernels().Supports(op_type));
  }
}

TEST_CASE("KernelSelectionDtypes reads the port kernel selection reads", "[acl]") {
  const auto dtypes = [](const OpSchema& schema) { return KernelSelectionDtypes(schema); };
  using D = DataType;
  // Input 0's constraint, not output 0's.
  CHECK(dtypes(OpSchema("a").Input("x", "T").Output("y", "U").TypeConstraint("T", {D::kInt8, D::kFloat}).TypeConstraint(
            "U", {D::kBool})) == std::vector<D>{D::kFloat, D::kInt8});
  // An optional input 0 may be absent: then output 0's dtype selects.
  CHECK(dtypes(OpSchema("b")
                   .OptionalInput("x", "T")
                   .Input("z", "T")
                   .Output("y", "U")
                   .TypeConstraint("T", {D::kInt64})
                   .TypeConstraint("U", {D::kFloat16, D::kInt64})) == std::vector<D>{D::kFloat16, D::kInt64});
  // As may a dynamic input 0 of no minimum count, but not one of one value or more.
  CHECK(dtypes(OpSchema("c").DynamicInput("x", "T", 0).Output("y", "U").TypeConstraint("T", {D::kInt32}).TypeConstraint(
            "U", {D::kBool})) == std::vector<D>{D::kInt32, D::kBool});
  CHECK(dtypes(OpSchema("d").DynamicInput("x", "T", 1).Output("y", "U").TypeConstraint("T", {D::kInt32}).TypeConstraint(
            "U", {D::kBool})) == std::vector<D>{D::kInt32});
  // No inputs: output 0's.
  CHECK(dtypes(OpSchema("e").Output("y", "T").TypeConstraint("T", {D::kUInt8})) == std::vector<D>{D::kUInt8});
  // A port without a type variable takes any dtype.
  const std::vector<D> any = dtypes(OpSchema("f").Input("x", "").Output("y", ""));
  CHECK(std::find(any.begin(), any.end(), D::kString) != any.end());
  CHECK(std::find(any.begin(), any.end(), D::kBFloat16) != any.end());
  CHECK(std::find(any.begin(), any.end(), D::kUndefined) == any.end());
  // Nothing to select by.
  CHECK(dtypes(OpSchema("g")).empty());
}

TEST_CASE("A schema op the CPU lacks is declared, and fails on the op library that lacks it", "[acl]") {
  // A registry of the built-in schemas and one op no CPU kernel and no op
  // library has (as a vendor's schema would be), kept out of Global().
  OpRegistry schemas;
  RegisterBuiltinOps(schemas);
  schemas.Register(OpSchema("AscendOnlyProbe")
                       .Input("x")
                       .Output("y")
                       .TypeConstraint("T", {DataType::kFloat, DataType::kFloat16})
                       .Infer([](InferContext& context) {
                         context.set_output(0, context.input_dtype(0), context.input_shape(0));
                       }));
  const device::KernelRegistry kernels = AclKernels(schemas);
  REQUIRE_FALSE(device::CpuDevice().kernels().Supports("AscendOnlyProbe"));
  const device::KernelDef* def = kernels.Find("AscendOnlyProbe", DataType::kFloat);
  REQUIRE(def != nullptr);
  CHECK(kernels.Find("AscendOnlyProbe", DataType::kFloat16) == def);
  CHECK(kernels.Find("AscendOnlyProbe", DataType::kInt32) == nullptr);

  // Its kernel builds; the op library (the emulator: ge's CPU kernels) says at
  // execution that it has no such op.
  Graph graph("probe");
  Node* node = graph.AddNode("AscendOnlyProbe", "probe_node", {graph.AddInput("x", DataType::kFloat, {4})});
  node->output(0)->set_dtype(DataType::kFloat);
  node->output(0)->set_shape({4});
  std::unique_ptr<device::Device> device = device::CreateAclDevice(0);
  {
    std::unique_ptr<device::Stream> stream = device->CreateStream();
    std::unique_ptr<device::Kernel> kernel = def->factory(*node);
    REQUIRE(kernel != nullptr);
    Tensor input(DataType::kFloat, {4}), output(DataType::kFloat, {4});
    DeviceBuffer in(*device, input.nbytes()), out(*device, output.nbytes());
    std::vector<device::TensorView> inputs{{input.dtype(), &input.shape(), in.data()}};
    std::vector<device::TensorView> outputs{{output.dtype(), &output.shape(), out.data()}};
    auto [code, message] = ErrorOf([&] {
      kernel->Run({inputs, outputs, nullptr, stream.get()});
      stream->Synchronize();
    });
    CHECK(code == ErrorCode::kUnsupported);
    CHECK_THAT(message, Catch::Contains("probe_node") && Catch::Contains("aclopCompileAndExecute") &&
                            Catch::Contains(std::to_string(ACL_ERROR_OP_NOT_FOUND)));
  }
  CHECK(acl_emulator::LiveDeviceAllocations() == 0);
}

}  // namespace
}  // namespace ge::test
