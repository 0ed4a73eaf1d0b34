// The geometry of a convolution or transposed convolution, read and checked
// once from the node; shared by the oneDNN kernel (float32), the direct
// kernel (the dtypes oneDNN lacks: float64, float16, bfloat16) and the
// quantized kernels (int8/int16 x, quantized_conv.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/kernel.h"
#include "ge/graph.h"

namespace ge::device::cpu {

// Where the operands sit among the node's inputs (Conv2DTranspose has
// input_size first).
struct ConvInputs {
  size_t x, filter, bias, offset_w;
};

struct ConvGeometry {
  ConvInputs inputs;
  bool transposed = false;
  DataType dtype = DataType::kUndefined;  // of x, filter, bias and y
  int64_t groups = 1;
  // x and y are [N, H, W, C] (data_format NHWC, which only the float32 oneDNN
  // Conv2D accepts), else channels first; the filter is [Cout, Cin/groups, k...] either way.
  bool channels_last = false;
  int64_t in_channels = 0, out_channels = 0;
  Shape x, filter, y;
  // Per spatial axis: filter size, stride, dilation (1 = dense), begin and end padding. For a transposed
  // convolution pad_end is derived from the planned output, so output_padding and input_size are honoured.
  std::vector<int64_t> kernel, stride, dilation, pad_begin, pad_end;
  bool has_bias = false;
};

// Shapes, groups, window attributes and the bias length, checked against
// each other (naming the node); dtype is left for the caller's dtype rule.
// NHWC is rejected unless allow_channels_last (a non-transposed convolution).
ConvGeometry ReadConvGeometry(const Node& node, ConvInputs inputs, bool transposed, bool allow_channels_last = false);

// An activation's dims (x or y) in N, C, spatial... order whatever its layout:
// the order oneDNN descriptors take, their format tag saying how they lie.
std::vector<int64_t> ChannelsFirstDims(const ConvGeometry& geometry, const Shape& activation);

// The ops conv_post_op_fusion folded into a float32 Conv2D/Conv3D
// (graph/conv_post_ops.h), checked against the node.
struct FusedPostOps {
  bool add = false;        // input kConvFusedAddend is added to y
  std::string activation;  // empty, kFusedRelu or kFusedClip
  float clip_min = 0, clip_max = 0;

  bool any() const { return add || !activation.empty(); }
};
FusedPostOps ReadFusedPostOps(const Node& node);

// A float32 convolution small enough that oneDNN's per-call work (memory
// objects, reorders, the stream) would outweigh its arithmetic, or null
// (small_conv.cc).
std::unique_ptr<Kernel> MakeSmallConv(const Node& node, const ConvGeometry& geometry, const FusedPostOps& fused);

// A kernel computing the convolution with direct loops, accumulating in double.
std::unique_ptr<Kernel> MakeDirectConv(const Node& node, const ConvGeometry& geometry);

// The quantized form's x dtypes (int8, int16).
bool IsQuantizedActivation(DataType dtype);
// x int8/int16, filter int8, bias int32 -> y int32, with offset_x the zero
// point of x (padding holds it, so padded taps add nothing).
std::unique_ptr<Kernel> MakeQuantizedConv(const Node& node, ConvInputs inputs, bool transposed);

}  // namespace ge::device::cpu
