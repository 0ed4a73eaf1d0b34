#include "device/cpu/kernels/window_attrs.h"

#include <algorithm>

#include <fmt/format.h>

#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

size_t SpatialRankOf(const Node& node, size_t x_input) {
  const Shape& x = InputShape(node, x_input);
  const std::string& format = node.attrs().GetString("data_format");
  const bool ok = (x.rank() == 4 && format == "NCHW") || (x.rank() == 5 && format == "NCDHW");
  if (!ok) {
    Fail(node, ErrorCode::kUnsupported,
         fmt::format("x {} with data_format \"{}\": the cpu kernels support 4-D NCHW and 5-D NCDHW", x.ToString(),
                     format));
  }
  return x.rank() - 2;
}

std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, size_t spatial) {
  const std::vector<int64_t>& values = node.attrs().GetInts(attr);
  if (values.size() != spatial + 2 || std::any_of(values.begin() + 2, values.end(), [](int64_t v) { return v <= 0; })) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute '{}' must have {} entries (N, C, then positive spatial values), got [{}]", attr,
                     spatial + 2, fmt::join(values, ", ")));
  }
  return std::vector<int64_t>(values.begin() + 2, values.end());
}

std::vector<int64_t> PadsAttrN(const Node& node, size_t spatial) {
  const std::vector<int64_t>& pads = node.attrs().GetInts("pads");
  if (pads.size() != 2 * spatial || std::any_of(pads.begin(), pads.end(), [](int64_t p) { return p < 0; })) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute 'pads' must be {} non-negative values (begin, end per spatial axis), got [{}]",
                     2 * spatial, fmt::join(pads, ", ")));
  }
  return pads;
}

}  // namespace ge::device::cpu
