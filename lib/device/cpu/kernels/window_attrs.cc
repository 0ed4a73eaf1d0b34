#include "device/cpu/kernels/window_attrs.h"

#include <algorithm>

#include <fmt/format.h>

#include "device/cpu/kernels/kernel_utils.h"

namespace ge::device::cpu {

WindowLayout WindowLayoutOf(const Node& node, size_t x_input, bool allow_channels_last) {
  const Shape& x = InputShape(node, x_input);
  const std::string& format = node.attrs().GetString("data_format");
  if (x.rank() == 4 && format == "NCHW") return WindowLayout{2, false};
  if (x.rank() == 5 && format == "NCDHW") return WindowLayout{3, false};
  if (allow_channels_last && x.rank() == 4 && format == "NHWC") return WindowLayout{2, true};
  Fail(node, ErrorCode::kUnsupported,
       fmt::format("x {} with data_format \"{}\": this cpu kernel supports 4-D NCHW{} and 5-D NCDHW", x.ToString(),
                   format, allow_channels_last ? ", 4-D NHWC" : ""));
}

size_t SpatialRankOf(const Node& node, size_t x_input) {
  return WindowLayoutOf(node, x_input, /*allow_channels_last=*/false).spatial;
}

std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, const WindowLayout& layout) {
  const std::vector<int64_t>& values = node.attrs().GetInts(attr);
  bool ok = values.size() == layout.rank();
  std::vector<int64_t> spatial_values;
  for (size_t a = 0; ok && a < layout.spatial; ++a) {
    spatial_values.push_back(values[layout.spatial_axis(a)]);
    ok = spatial_values.back() > 0;
  }
  if (!ok) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("attribute '{}' must have {} entries ({}), got [{}]", attr, layout.rank(),
                     layout.channels_last ? "N, positive spatial values, C" : "N, C, then positive spatial values",
                     fmt::join(values, ", ")));
  }
  return spatial_values;
}

std::vector<int64_t> SpatialAttrN(const Node& node, const std::string& attr, size_t spatial) {
  return SpatialAttrN(node, attr, WindowLayout{spatial, false});
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
