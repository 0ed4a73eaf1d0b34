#include "graph/ops/window_infer.h"

#include <fmt/format.h>

#include "graph/ops/infer_helpers.h"

namespace ge::infer {

const char* DataFormatFor(size_t spatial) { return spatial == 3 ? "NCDHW" : "NCHW"; }

const char* SpatialName(size_t axis, size_t spatial) {
  static constexpr const char* kNames[] = {"depth", "height", "width"};
  return kNames[3 - spatial + axis];
}

void RequireDataFormat(InferContext& ctx, size_t spatial) {
  const auto& format = Attr<std::string>(ctx, "data_format");
  if (format != DataFormatFor(spatial)) {
    ctx.Fail(fmt::format("attribute 'data_format' is '{}'; valid: {}", format, DataFormatFor(spatial)));
  }
}

WindowLayout ReadWindowLayout(InferContext& ctx, size_t spatial, bool allow_channels_last) {
  const auto& format = Attr<std::string>(ctx, "data_format");
  if (format == DataFormatFor(spatial)) return WindowLayout{spatial, false};
  const bool channels_last_ok = allow_channels_last && spatial == 2;
  if (channels_last_ok && format == "NHWC") return WindowLayout{spatial, true};
  ctx.Fail(fmt::format("attribute 'data_format' is '{}'; valid: {}{}", format, DataFormatFor(spatial),
                       channels_last_ok ? ", NHWC" : ""));
}

std::vector<int64_t> SpatialValues(InferContext& ctx, const std::string& name, const WindowLayout& layout) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, name);
  bool ok = values.size() == layout.rank() && values[0] == 1 && values[layout.channel_axis()] == 1;
  std::vector<int64_t> spatial_values;
  for (size_t a = 0; ok && a < layout.spatial; ++a) {
    spatial_values.push_back(values[layout.spatial_axis(a)]);
    ok = spatial_values.back() >= 1 && spatial_values.back() <= kMaxWindowValue;
  }
  if (!ok) {
    ctx.Fail(fmt::format("attribute '{}' must be {} values in {} order with N = C = 1 and the others in [1, {}], got "
                         "[{}]",
                         name, layout.rank(), layout.channels_last ? "NHWC" : DataFormatFor(layout.spatial),
                         kMaxWindowValue, fmt::join(values, ", ")));
  }
  return spatial_values;
}

std::vector<int64_t> SpatialValues(InferContext& ctx, const std::string& name, size_t spatial) {
  return SpatialValues(ctx, name, WindowLayout{spatial, false});
}

std::vector<int64_t> SpatialPads(InferContext& ctx, size_t spatial) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, "pads");
  bool ok = values.size() == 2 * spatial;
  for (int64_t pad : values) ok = ok && pad >= 0 && pad <= kMaxWindowValue;
  if (!ok) {
    ctx.Fail(fmt::format("attribute 'pads' must be {} values in [0, {}] (begin, end per spatial axis), got [{}]",
                         2 * spatial, kMaxWindowValue, fmt::join(values, ", ")));
  }
  return values;
}

}  // namespace ge::infer
