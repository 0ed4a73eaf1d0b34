// The device stage (PassStage::kDevice): the compiler asks the target device
// for its rewrites, runs them after the generic passes and before dead-code
// elimination, and leaves them out for the device-independent graph that
// quantization and layer comparison work on.
#include <catch2/catch.hpp>

#include <algorithm>

#include "device/device.h"
#include "ge/compiled_model.h"
#include "passes/pass.h"
#include "runtime/compile/compiler.h"
#include "test_models.h"

namespace ge {
namespace {

std::vector<std::string> PassNames(const std::vector<PassTiming>& timings) {
  std::vector<std::string> names;
  for (const PassTiming& timing : timings) names.push_back(timing.pass);
  return names;
}

size_t CountOps(const Graph& graph, const std::string& op_type) {
  size_t count = 0;
  for (const Node* node : graph.nodes()) count += node->op_type() == op_type;
  return count;
}

const std::vector<std::string> kCpuRewrites = {"conv_post_op_fusion", "nhwc_layout"};

}  // namespace

TEST_CASE("The CPU device declares its rewrites: post-op fusion then the NHWC layout") {
  std::vector<std::string> names;
  for (const std::unique_ptr<Pass>& pass : device::CpuDevice().RewritePasses()) names.push_back(pass->name());
  CHECK(names == kCpuRewrites);
}

TEST_CASE("A CPU compile runs the device stage after the generic passes and before dead-code elimination") {
  auto model = CompiledModel::Compile(test::ConvReluModel().Build());
  std::vector<std::string> expected = PassManager::WithBuiltinPasses().PassNames();
  expected.insert(std::find(expected.begin(), expected.end(), "dead_code_elimination"), kCpuRewrites.begin(),
                  kCpuRewrites.end());
  CHECK(PassNames(model->pass_timings()) == expected);
  CHECK(CountOps(model->graph(), "Relu") == 0);  // folded into the convolution
}

TEST_CASE("A device-independent compile leaves the device stage out but keeps its pass names valid") {
  // nhwc_layout may still be named in ge.disablePasses: it exists, it just does not run.
  CompiledModel model(runtime::CompileGraph(test::ConvReluModel().Build(), {{"ge.disablePasses", "nhwc_layout"}},
                                            runtime::DeviceRewrites::kSkip));
  CHECK(PassNames(model.pass_timings()) == PassManager::WithBuiltinPasses().PassNames());
  CHECK(CountOps(model.graph(), "Relu") == 1);
  for (const Node* node : model.graph().nodes()) {
    if (node->op_type() == "Conv2D") CHECK(node->attrs().GetString("data_format") == "NCHW");
  }
}

}  // namespace ge
