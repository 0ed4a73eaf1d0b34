#include "ge/cpu_paths.h"

#include <fmt/core.h>

#include "ge/error.h"

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

bool Int8UsesVnni(const std::string& isa, const std::string& option) {
  using namespace device::cpu;
  if (isa.empty()) {
    CheckCpuIsaCap();
    return DnnlInt8HasVnni();
  }
  const std::optional<unsigned> named = DnnlIsaNamed(isa);
  if (!named) {
    throw Error(ErrorCode::kInvalidArgument,
                fmt::format("{} is '{}'; valid values: {}", option, isa, IsaNames()));
  }
  return Int8HasVnni(*named);
}

}  // namespace ge
