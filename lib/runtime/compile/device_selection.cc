#include "runtime/compile/device_selection.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ge/error.h"
#ifdef GE_WITH_ACL
#include "device/acl/acl_device.h"
#endif

namespace ge::runtime {

std::shared_ptr<device::Device> SelectDevice(const RuntimeOptions& settings) {
  if (settings.device == "cpu") {
    return std::shared_ptr<device::Device>(&device::CpuDevice(), [](device::Device*) {});
  }
#ifdef GE_WITH_ACL
  device::AclCompileOptions acl;
  acl.precision_mode = settings.precision_mode_v2.empty() ? settings.precision_mode : settings.precision_mode_v2;
  acl.precision_mode_v2 = !settings.precision_mode_v2.empty();
  if (settings.impl_mode_given) acl.op_select_implmode = settings.impl_mode;
  acl.optypelist_for_implmode = fmt::format("{}", fmt::join(settings.optypelist_for_implmode, ","));
  acl.op_precision_mode = settings.op_precision_mode;
  return device::CreateAclDevice(static_cast<int32_t>(settings.device_id), acl);
#else
  throw Error(ErrorCode::kUnsupported,
              fmt::format("option ge.exec.device: '{}' needs the Ascend backend, which this build lacks "
                          "(configure with -DGE_WITH_ACL=ON, docs/ascend.md); valid here: cpu",
                          settings.device));
#endif
}

}  // namespace ge::runtime
