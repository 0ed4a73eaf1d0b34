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

std::vector<int64_t> SpatialValues(InferContext& ctx, const std::string& name, size_t spatial) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, name);
  bool ok = values.size() == spatial + 2 && values[0] == 1 && values[1] == 1;
  for (size_t i = 2; ok && i < values.size(); ++i) ok = values[i] > 0;
  if (!ok) {
    ctx.Fail(fmt::format("attribute '{}' must be {} positive values in {} order with N = C = 1, got [{}]", name,
                         spatial + 2, DataFormatFor(spatial), fmt::join(values, ", ")));
  }
  return std::vector<int64_t>(values.begin() + 2, values.end());
}

std::vector<int64_t> SpatialPads(InferContext& ctx, size_t spatial) {
  const auto& values = Attr<std::vector<int64_t>>(ctx, "pads");
  bool ok = values.size() == 2 * spatial;
  for (int64_t pad : values) ok = ok && pad >= 0;
  if (!ok) {
    ctx.Fail(fmt::format("attribute 'pads' must be {} non-negative values (begin, end per spatial axis), got [{}]",
                         2 * spatial, fmt::join(values, ", ")));
  }
  return values;
}

}  // namespace ge::infer
