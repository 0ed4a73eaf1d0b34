#include "ge/cpu_paths.h"

#include "device/cpu/cpu_isa.h"
#include "device/cpu/kernels/bf16_products.h"
#include "device/cpu/kernels/dnnl_utils.h"
#include "device/cpu/kernels/int8_pair_sums.h"

namespace ge {

CpuPaths DescribeCpuPaths() {
  using namespace device::cpu;
  CheckCpuIsaCap();
  return {CpuLevelName(ActiveCpuLevel()), DnnlIsaName(DnnlIsa()), DnnlInt8HasVnni() ? "vnni" : "u8 pairs",
          NativeBf16Products() ? "native" : "emulated"};
}

}  // namespace ge
