#include "device/cpu/kernels/conv_geometry.h"

#include <algorithm>

#include <fmt/core.h>

#include "device/cpu/kernels/kernel_utils.h"
#include "device/cpu/kernels/window_attrs.h"
#include "graph/conv_post_ops.h"

namespace ge::device::cpu {

ConvGeometry ReadConvGeometry(const Node& node, ConvInputs inputs, bool transposed, bool allow_channels_last) {
  ConvGeometry g;
  g.inputs = inputs;
  g.transposed = transposed;
  const WindowLayout layout = WindowLayoutOf(node, inputs.x, allow_channels_last && !transposed);
  const size_t spatial = layout.spatial;
  g.channels_last = layout.channels_last;
  g.x = InputShape(node, inputs.x);
  g.filter = InputShape(node, inputs.filter);
  g.y = OutputShape(node, 0);
  if (g.filter.rank() != g.x.rank() || g.y.rank() != g.x.rank()) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("x, filter and y must have the same rank, got {}, {}, {}", g.x.ToString(), g.filter.ToString(),
                     g.y.ToString()));
  }
  g.groups = node.attrs().GetInt("groups");
  const int64_t in_channels = g.in_channels = g.x.dim(layout.channel_axis());
  const int64_t out_channels = g.out_channels = g.y.dim(layout.channel_axis());
  const int64_t filter_in = transposed ? g.filter.dim(0) : g.filter.dim(1) * g.groups;
  const int64_t filter_out = transposed ? g.filter.dim(1) * g.groups : g.filter.dim(0);
  if (g.groups < 1 || in_channels % g.groups != 0 || out_channels % g.groups != 0 || filter_in != in_channels ||
      filter_out != out_channels) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("groups = {}, x {}, filter {} and y {} do not agree on the channel counts", g.groups,
                     g.x.ToString(), g.filter.ToString(), g.y.ToString()));
  }
  g.stride = SpatialAttrN(node, "strides", layout);
  g.dilation = SpatialAttrN(node, "dilations", layout);
  const std::vector<int64_t> pads = PadsAttrN(node, spatial);
  g.kernel.assign(g.filter.dims().begin() + 2, g.filter.dims().end());
  for (size_t a = 0; a < spatial; ++a) {
    g.pad_begin.push_back(pads[2 * a]);
    if (transposed) {
      // output_padding extends the end edge: it shows up as less end
      // padding. Derived from the planned output so input_size is honoured.
      const int64_t span = (g.x.dim(layout.spatial_axis(a)) - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
      g.pad_end.push_back(span - pads[2 * a] - g.y.dim(layout.spatial_axis(a)));
    } else {
      g.pad_end.push_back(pads[2 * a + 1]);
    }
  }
  g.has_bias = HasInput(node, inputs.bias);
  if (g.has_bias && InputShape(node, inputs.bias).NumElements() != out_channels) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("bias {} must have {} (output channels) elements", InputShape(node, inputs.bias).ToString(),
                     out_channels));
  }
  return g;
}

std::vector<int64_t> ChannelsFirstDims(const ConvGeometry& geometry, const Shape& activation) {
  std::vector<int64_t> dims = activation.dims();
  if (geometry.channels_last) std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());  // N, H, W, C -> N, C, H, W
  return dims;
}

FusedPostOps ReadFusedPostOps(const Node& node) {
  FusedPostOps fused;
  fused.add = node.attrs().Has(kFusedAddAttr) && node.attrs().GetBool(kFusedAddAttr);
  if (fused.add != HasInput(node, kConvFusedAddend)) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("{} and input {} (the fused addend) must come together", kFusedAddAttr, kConvFusedAddend));
  }
  if (fused.add) {
    RequireInputDtype(node, kConvFusedAddend, {DataType::kFloat});
    if (InputShape(node, kConvFusedAddend) != OutputShape(node, 0)) {
      Fail(node, ErrorCode::kInvalidArgument,
           fmt::format("the fused addend {} must have the shape of y {}",
                       InputShape(node, kConvFusedAddend).ToString(), OutputShape(node, 0).ToString()));
    }
  }
  if (!node.attrs().Has(kFusedActivationAttr)) return fused;
  fused.activation = node.attrs().GetString(kFusedActivationAttr);
  if (fused.activation == kFusedClip) {
    fused.clip_min = node.attrs().GetFloat(kFusedClipMinAttr);
    fused.clip_max = node.attrs().GetFloat(kFusedClipMaxAttr);
  } else if (fused.activation != kFusedRelu) {
    Fail(node, ErrorCode::kInvalidArgument,
         fmt::format("{} '{}' is none of {}, {}", kFusedActivationAttr, fused.activation, kFusedRelu, kFusedClip));
  }
  return fused;
}

}  // namespace ge::device::cpu
