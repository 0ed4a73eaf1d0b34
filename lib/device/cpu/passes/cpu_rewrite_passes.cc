#include "device/cpu/passes/cpu_rewrite_passes.h"

namespace ge::device::cpu {

std::vector<std::unique_ptr<Pass>> CpuRewritePasses() {
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(MakeConvPostOpFusionPass());
  passes.push_back(MakeNhwcLayoutPass());
  return passes;
}

}  // namespace ge::device::cpu
