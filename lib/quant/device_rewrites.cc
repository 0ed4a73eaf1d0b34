#include "quant/device_rewrites.h"

#include <fmt/core.h>

namespace ge::quant {

Options WithoutDeviceRewrites(Options options) {
  static constexpr const char* kDeviceRewrites[] = {"conv_post_op_fusion", "nhwc_layout"};
  std::string& disabled = options["ge.disablePasses"];
  for (const char* pass : kDeviceRewrites) disabled += disabled.empty() ? pass : fmt::format(",{}", pass);
  return options;
}

}  // namespace ge::quant
