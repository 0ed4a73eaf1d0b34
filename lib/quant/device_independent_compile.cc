#include "quant/device_independent_compile.h"

#include "runtime/compile/compiler.h"

namespace ge::quant {

std::shared_ptr<const CompiledModel> CompileDeviceIndependent(std::unique_ptr<Graph> graph, const Options& options) {
  return std::make_shared<const CompiledModel>(
      runtime::CompileGraph(std::move(graph), options, runtime::DeviceRewrites::kSkip));
}

}  // namespace ge::quant
