// Small float32 convolutions, where oneDNN's per-call work (memory objects,
// a stream, reorders to its blocked layouts: several microseconds) would
// outweigh the arithmetic. A streaming model's convolutions over a few
// frames (64 channels, 4 positions: 50,000 products, 1 us here) are such.
// Per image, x's patches [positions, Cin * taps] (im2col, transposed) are
// multiplied with the filter, packed once into blocks of 16 output
// channels [Cin * taps, 16], four positions at a time: eight vector
// accumulators that each filter load feeds four times. Both layouts run
// here: channels first, and channels last (NHWC, where nhwc_layout_pass
// puts float32 Conv2Ds), whose patches and outputs are rows of channels. Larger convolutions,
// and every one on a CPU without AVX2 (where these loops are not
// vectorized), stay with oneDNN (conv.cc).
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/core.h>

#include "device/cpu/cpu_isa.h"
#include "device/cpu/kernels/conv_geometry.h"
#include "device/cpu/kernels/conv_taps.h"
#include "device/cpu/kernels/cpu_clones.h"
#include "device/cpu/kernels/kernel_utils.h"
#include "device/prepacked_weights.h"
#include "graph/conv_post_ops.h"

namespace ge::device::cpu {

namespace {

// Up to this many products (batch * Cout * Cin * taps * output positions) a
// convolution runs here. The smallest layer of the CNNs in
// docs/performance.md does over a million; the streaming model's do under
// 100,000.
constexpr double kSmallConvProducts = 1 << 18;

constexpr int64_t kChannelBlock = 16;  // output channels per filter block: two 8-float vectors
constexpr int64_t kPositionBlock = 4;  // output positions sharing each filter load

// Eight floats, loaded from and stored to unaligned memory. The AVX-512
// clone runs them on 256-bit registers too, which measured faster here
// than 16-float vectors under AVX2 and no slower under AVX-512.
using Lanes = float __attribute__((vector_size(32), aligned(4)));

// The geometry the loops read, by value (cpu_clones.h).
struct SmallConvShape {
  int64_t in_channels, out_channels, taps, depth;  // depth = in_channels * taps
  int64_t in_positions, out_positions;
  Dims3 in, out, kernel, stride, dilation, pad;
  // Element strides of a channel and of a spatial position in x and in y
  // (and the addend), and of a channel and of a tap in a patch row:
  // channels first, a patch is (channel, tap); channels last, (tap, channel).
  int64_t x_channel, x_position, y_channel, y_position, patch_channel, patch_tap;
  bool relu, clip;
  float clip_min, clip_max;
};

// Where tap k of axis a reads, relative to output position 0.
int64_t TapOffset(const SmallConvShape& s, size_t a, int64_t k) { return k * s.dilation[a] - s.pad[a]; }

// patches[position, (channel, tap)] = x[channel] under the position's
// window tap, 0 in the padding. Channels last, each tap of a position is
// one contiguous copy of the channels.
void GatherPatches(const SmallConvShape s, const float* x, float* patches) {
  for (int64_t tap = 0; tap < s.taps; ++tap) {
    const Dims3 k = {tap / (s.kernel[1] * s.kernel[2]), tap / s.kernel[2] % s.kernel[1], tap % s.kernel[2]};
    const Range along_w = ValidRange(s.out[2], s.in[2], s.stride[2], TapOffset(s, 2, k[2]));
    for (int64_t od = 0; od < s.out[0]; ++od) {
      const int64_t id = od * s.stride[0] + TapOffset(s, 0, k[0]);
      for (int64_t oh = 0; oh < s.out[1]; ++oh) {
        const int64_t ih = oh * s.stride[1] + TapOffset(s, 1, k[1]);
        const bool inside = id >= 0 && id < s.in[0] && ih >= 0 && ih < s.in[1];
        for (int64_t ow = 0; ow < s.out[2]; ++ow) {
          float* dst = patches + ((od * s.out[1] + oh) * s.out[2] + ow) * s.depth + tap * s.patch_tap;
          if (!inside || ow < along_w.begin || ow >= along_w.end) {
            for (int64_t c = 0; c < s.in_channels; ++c) dst[c * s.patch_channel] = 0.0f;
            continue;
          }
          const int64_t iw = ow * s.stride[2] + TapOffset(s, 2, k[2]);
          const float* src = x + ((id * s.in[1] + ih) * s.in[2] + iw) * s.x_position;
          for (int64_t c = 0; c < s.in_channels; ++c) dst[c * s.patch_channel] = src[c * s.x_channel];
        }
      }
    }
  }
}

// tile[r, 0..16) = patches[r, :] @ block[:, 0..16) for kRows positions.
template <int64_t kRows>
void MultiplyBlock(const float* patches, int64_t depth, const float* block, float* tile) {
  Lanes low[kRows] = {}, high[kRows] = {};
  for (int64_t d = 0; d < depth; ++d) {
    Lanes w_low, w_high;
    std::memcpy(&w_low, block + d * kChannelBlock, sizeof(Lanes));
    std::memcpy(&w_high, block + d * kChannelBlock + 8, sizeof(Lanes));
    // Unrolled, so the accumulators stay in registers.
#pragma GCC unroll 4
    for (int64_t r = 0; r < kRows; ++r) {
      const float x = patches[r * depth + d];
      low[r] += x * w_low;
      high[r] += x * w_high;
    }
  }
  for (int64_t r = 0; r < kRows; ++r) {
    std::memcpy(tile + r * kChannelBlock, &low[r], sizeof(Lanes));
    std::memcpy(tile + r * kChannelBlock + 8, &high[r], sizeof(Lanes));
  }
}

// One image: y = act(filter @ patches^T + bias + addend).
void ConvolveImage(const SmallConvShape s, const float* patches, const float* packed, const float* bias,
                   const float* addend, float* y) {
  float tile[kPositionBlock * kChannelBlock];
  for (int64_t first_channel = 0; first_channel < s.out_channels; first_channel += kChannelBlock) {
    const float* block = packed + first_channel * s.depth;
    const int64_t channels = std::min(kChannelBlock, s.out_channels - first_channel);
    float bias_block[kChannelBlock] = {};
    if (bias != nullptr) std::copy(bias + first_channel, bias + first_channel + channels, bias_block);
    for (int64_t first = 0; first < s.out_positions; first += kPositionBlock) {
      const int64_t rows = std::min(kPositionBlock, s.out_positions - first);
      const float* rows_in = patches + first * s.depth;
      switch (rows) {
        case 4: MultiplyBlock<4>(rows_in, s.depth, block, tile); break;
        case 3: MultiplyBlock<3>(rows_in, s.depth, block, tile); break;
        case 2: MultiplyBlock<2>(rows_in, s.depth, block, tile); break;
        default: MultiplyBlock<1>(rows_in, s.depth, block, tile); break;
      }
      for (int64_t r = 0; r < rows; ++r) {
        float* tile_row = tile + r * kChannelBlock;
        float* y_row = y + first_channel * s.y_channel + (first + r) * s.y_position;
        for (int64_t j = 0; j < channels; ++j) tile_row[j] += bias_block[j];
        if (addend != nullptr) {
          const float* addend_row = addend + (y_row - y);
          for (int64_t j = 0; j < channels; ++j) tile_row[j] += addend_row[j * s.y_channel];
        }
        if (s.relu) {
          for (int64_t j = 0; j < channels; ++j) tile_row[j] = std::max(tile_row[j], 0.0f);
        }
        if (s.clip) {
          for (int64_t j = 0; j < channels; ++j) tile_row[j] = std::min(std::max(tile_row[j], s.clip_min), s.clip_max);
        }
        for (int64_t j = 0; j < channels; ++j) y_row[j * s.y_channel] = tile_row[j];
      }
    }
  }
}

// The filter [Cout, Cin, taps] as blocks of 16 output channels, each
// [depth, 16] in the patches' (channel, tap) order, the channels past Cout
// zero.
std::vector<float> PackFilter(const float* filter, const SmallConvShape& s) {
  const int64_t blocks = (s.out_channels + kChannelBlock - 1) / kChannelBlock;
  std::vector<float> packed(static_cast<size_t>(blocks * s.depth * kChannelBlock), 0.0f);
  for (int64_t out = 0; out < s.out_channels; ++out) {
    float* block = packed.data() + out / kChannelBlock * s.depth * kChannelBlock + out % kChannelBlock;
    for (int64_t in = 0; in < s.in_channels; ++in) {
      for (int64_t tap = 0; tap < s.taps; ++tap) {
        block[(in * s.patch_channel + tap * s.patch_tap) * kChannelBlock] = filter[(out * s.in_channels + in) * s.taps + tap];
      }
    }
  }
  return packed;
}

class SmallConvKernel final : public Kernel {
 public:
  SmallConvKernel(const ConvGeometry& g, const FusedPostOps& fused, const Tensor& filter)
      : inputs_(g.inputs), has_bias_(g.has_bias), add_(fused.add), batch_(g.x.dim(0)) {
    SmallConvShape& s = shape_;
    s.in_channels = g.in_channels;
    s.out_channels = g.out_channels;
    s.in = SpatialDims(Shape(ChannelsFirstDims(g, g.x)));
    s.out = SpatialDims(Shape(ChannelsFirstDims(g, g.y)));
    s.kernel = Pad3(g.kernel, 1);
    s.stride = Pad3(g.stride, 1);
    s.dilation = Pad3(g.dilation, 1);
    s.pad = Pad3(g.pad_begin, 0);
    s.taps = s.kernel[0] * s.kernel[1] * s.kernel[2];
    s.depth = s.in_channels * s.taps;
    s.in_positions = s.in[0] * s.in[1] * s.in[2];
    s.out_positions = s.out[0] * s.out[1] * s.out[2];
    if (g.channels_last) {
      s.x_channel = s.y_channel = s.patch_channel = 1;
      s.x_position = s.in_channels;
      s.y_position = s.out_channels;
      s.patch_tap = s.in_channels;
    } else {
      s.x_channel = s.in_positions;
      s.y_channel = s.out_positions;
      s.x_position = s.y_position = 1;
      s.patch_channel = s.taps;
      s.patch_tap = 1;
    }
    s.relu = fused.activation == kFusedRelu;
    s.clip = fused.activation == kFusedClip;
    s.clip_min = fused.clip_min;
    s.clip_max = fused.clip_max;
    packed_layout_ = fmt::format("small_conv blocks of {} [Cout {}, Cin {}, taps {}, {}]", kChannelBlock,
                                 s.out_channels, s.in_channels, s.taps, g.channels_last ? "tap-major" : "channel-major");
    packed_bytes_ = static_cast<size_t>((s.out_channels + kChannelBlock - 1) / kChannelBlock * kChannelBlock *
                                        s.depth) * sizeof(float);
    const device::PrepackedWeights* offered = device::OfferedPrepackedWeights();
    const void* found = offered != nullptr ? offered->Find(filter.data(), packed_layout_, packed_bytes_) : nullptr;
    if (found != nullptr) {
      packed_ = static_cast<const float*>(found);
    } else {
      owned_ = PackFilter(static_cast<const float*>(filter.data()), s);
      packed_ = owned_.data();
    }
  }

  // The packed filter replaces the constant, which a model may then release
  // (ge.exec.releasePackedConstants) and a .gem file stores.
  std::vector<PackedInput> PackedInputs() const override {
    return {{inputs_.filter, packed_layout_, packed_, packed_bytes_}};
  }

  size_t WorkspaceBytes() const override {
    return static_cast<size_t>(shape_.out_positions * shape_.depth) * sizeof(float);
  }

  void Run(const KernelContext& ctx) const override {
    const auto* x = ctx.inputs[inputs_.x].as<const float>();
    const float* bias = has_bias_ ? ctx.inputs[inputs_.bias].as<const float>() : nullptr;
    const float* addend = add_ ? ctx.inputs[kConvFusedAddend].as<const float>() : nullptr;
    auto* y = ctx.outputs[0].as<float>();
    auto* patches = static_cast<float*>(ctx.workspace);
    const SmallConvShape& s = shape_;
    const int64_t x_image = s.in_channels * s.in_positions, y_image = s.out_channels * s.out_positions;
    for (int64_t image = 0; image < batch_; ++image) {
      const float* x_in = x + image * x_image;
      const float* addend_in = addend != nullptr ? addend + image * y_image : nullptr;
      float* y_out = y + image * y_image;
      PerCpu([&] {
        GatherPatches(s, x_in, patches);
        ConvolveImage(s, patches, packed_, bias, addend_in, y_out);
      });
    }
  }

 private:
  ConvInputs inputs_;
  bool has_bias_, add_;
  int64_t batch_;
  SmallConvShape shape_;
  std::string packed_layout_;
  size_t packed_bytes_ = 0;
  std::vector<float> owned_;        // the packed filter, unless a loaded model offered it
  const float* packed_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> MakeSmallConv(const Node& node, const ConvGeometry& g, const FusedPostOps& fused) {
  if (g.dtype != DataType::kFloat || g.transposed || g.groups != 1) return nullptr;
  const std::vector<int64_t> y = ChannelsFirstDims(g, g.y);
  double products = static_cast<double>(g.x.dim(0)) * static_cast<double>(g.in_channels) *
                    static_cast<double>(g.out_channels);
  for (size_t a = 0; a < g.kernel.size(); ++a) {
    products *= static_cast<double>(g.kernel[a]) * static_cast<double>(y[2 + a]);
  }
  const Tensor* filter = node.input(g.inputs.filter)->constant();
  if (products > kSmallConvProducts || filter == nullptr || ActiveCpuLevel() == CpuLevel::kBaseline) return nullptr;
  return std::make_unique<SmallConvKernel>(g, fused, *filter);
}

}  // namespace ge::device::cpu
